# What scripts/device/sanitize.sh runs, one job per line: "OP" (every variant of the op) or
# "OP VARIANT", or with NB_SANITIZE_CHUNK "OP VARIANT PROBLEM,PROBLEM,..." (below). racecheck runs
# the variants whose kernels are ours, one job each (one slow variant then holds up only itself,
# and its log names it): the listing's rows less the library kinds
# (cudnn, cublas: their kernels are not this project's to fix) and the n/a rows (a variant an op
# explains it does not have, shown in parentheses: not a name `run --variant` takes).
nb_own_variants() {  # nb_own_variants NORMBENCH OP: one name per line
  "$1" list variants --op "$2" | awk 'NR > 1 && $2 != "cudnn" && $2 != "cublas" && $2 != "n/a" { print $1 }'
}

# NB_SANITIZE_VARIANTS="name name ..." narrows every tool to those variants of ours, one job each
# (a name an op lacks gives that op no job): a session that changed one kernel checks it alone.
# NB_SANITIZE_CHUNK=N splits every job into jobs of N of its op's quick problems, named in a third
# field (ids joined by commas; the second field "-" where the job runs every variant of the op): a
# variant that is slow under the tool (racecheck of the row backwards: 51 cases past 280 s) then
# spreads over as many processes as the host runs side by side.
nb_sanitize_jobs() {  # nb_sanitize_jobs NORMBENCH TOOL OP...
  local bin="$1" tool="$2" op variant
  shift 2
  if [ -n "${NB_SANITIZE_CHUNK:-}" ]; then
    [[ "$NB_SANITIZE_CHUNK" =~ ^[1-9][0-9]*$ ]] || { echo "NB_SANITIZE_CHUNK: '$NB_SANITIZE_CHUNK' is not a count of problems" >&2; return 2; }
    NB_SANITIZE_CHUNK="" nb_sanitize_jobs "$bin" "$tool" "$@" | nb_sanitize_chunks "$bin" "$NB_SANITIZE_CHUNK"
    return "${PIPESTATUS[0]}"
  fi
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

# Job lines in, the same jobs out in chunks of at most N quick problems each, dealt round-robin in
# the op's listing order (the quick suites list their long rows together: dealt, they spread).
nb_sanitize_chunks() {  # nb_sanitize_chunks NORMBENCH N < jobs
  local bin="$1" per_job="$2" op variant
  while read -r op variant; do
    "$bin" list problems --op "$op" --suite quick | awk -v per_job="$per_job" -v head="$op ${variant:--}" '
      { problem[NR - 1] = $1 }
      END {
        chunks = int((NR + per_job - 1) / per_job)
        for (c = 0; c < chunks; ++c) {
          line = ""
          for (i = c; i < NR; i += chunks) line = line (line == "" ? "" : ",") problem[i]
          print head " " line
        }
      }'
  done
}
