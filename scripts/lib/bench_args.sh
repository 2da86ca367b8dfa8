# The arguments scripts/bench.sh gives `normbench run`: its defaults (--suite kb, --out
# <root>/reports, --devices all) where the user's own arguments do not choose otherwise, then the
# user's. normbench takes each of these options once and refuses options that contradict each
# other (--suite beside --problem or --params, --devices beside --device or --profile), so a
# default the user overrides is left out.
# Source it; it defines functions only.

# Arguments: ROOT [user arguments...]. Sets the array NB_BENCH_ARGS (without the program).
nb_bench_run_args() {
  local root="$1"; shift
  local suite=(--suite kb) out=(--out "$root/reports") devices=(--devices all) a
  for a in "$@"; do
    case "$a" in
      --suite|--suite=*|--problem|--problem=*|--params|--params=*) suite=() ;;  # each chooses the problems
      --out|--out=*) out=() ;;
      --device|--device=*|--devices|--devices=*|--profile) devices=() ;;
    esac
  done
  NB_BENCH_ARGS=(run ${suite[@]+"${suite[@]}"} ${out[@]+"${out[@]}"} ${devices[@]+"${devices[@]}"} "$@")
}
