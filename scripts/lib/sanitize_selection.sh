# What racecheck runs of an op (scripts/device/sanitize.sh): the variants whose kernels are ours,
# as a --variant list. The listing's rows less the library kinds (cudnn, cublas: their kernels are
# not this project's to fix) and the n/a rows (a variant an op explains it does not have, shown in
# parentheses: not a name `run --variant` takes).
nb_own_variants() {  # nb_own_variants NORMBENCH OP
  "$1" list variants --op "$2" |
    awk 'NR > 1 && $2 != "cudnn" && $2 != "cublas" && $2 != "n/a" { printf "%s%s", sep, $1; sep = "," }'
}
