# What scripts/device/sanitize.sh runs, one job per line: "OP" (every variant of the op) or
# "OP VARIANT". racecheck runs the variants whose kernels are ours, one job each (one slow variant
# then holds up only itself, and its log names it): the listing's rows less the library kinds
# (cudnn, cublas: their kernels are not this project's to fix) and the n/a rows (a variant an op
# explains it does not have, shown in parentheses: not a name `run --variant` takes).
nb_own_variants() {  # nb_own_variants NORMBENCH OP: one name per line
  "$1" list variants --op "$2" | awk 'NR > 1 && $2 != "cudnn" && $2 != "cublas" && $2 != "n/a" { print $1 }'
}

# NB_SANITIZE_VARIANTS="name name ..." narrows every tool to those variants of ours, one job each
# (a name an op lacks gives that op no job): a session that changed one kernel checks it alone.
nb_sanitize_jobs() {  # nb_sanitize_jobs NORMBENCH TOOL OP...
  local bin="$1" tool="$2" op variant
  shift 2
  for op in "$@"; do
    if [ -n "${NB_SANITIZE_VARIANTS:-}" ]; then
      for variant in $(nb_own_variants "$bin" "$op"); do
        case " $NB_SANITIZE_VARIANTS " in *" $variant "*) echo "$op $variant" ;; esac
      done
    elif [ "$tool" = racecheck ]; then
      for variant in $(nb_own_variants "$bin" "$op"); do echo "$op $variant"; done
    else
      echo "$op"
    fi
  done
}
