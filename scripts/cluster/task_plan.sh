# The logic of the Slurm array job (normbench-array.sbatch), as functions a test can call without
# Slurm: which devices a task runs on and where its reports go. Source it; it defines functions only.

# The --devices value for a task: every GPU Slurm gave the task ("all": normbench counts the
# devices CUDA_VISIBLE_DEVICES leaves visible), or NB_DEVICES when set (e.g. "0,2").
nb_task_devices() {
  if [ -n "${NB_DEVICES:-}" ]; then echo "$NB_DEVICES"; else echo all; fi
}

# The folder one array task writes into: SHARED/RUN_ID/task-NNN (NNN: the array index, zero padded),
# so that tasks never share a folder and `normbench fleet SHARED/RUN_ID` finds every report.
# Arguments: SHARED RUN_ID TASK_INDEX. Fails on an index that is not a non-negative integer or a run
# id with characters other than letters, digits, '.', '_' and '-'.
nb_task_out_dir() {
  local shared="$1" run_id="$2" index="$3"
  case "$index" in ''|*[!0-9]*) echo "nb_task_out_dir: task index '$index' is not a non-negative integer" >&2; return 2 ;; esac
  case "$run_id" in ''|.*|*[!A-Za-z0-9._-]*) echo "nb_task_out_dir: bad run id '$run_id'" >&2; return 2 ;; esac
  [ -n "$shared" ] || { echo "nb_task_out_dir: no shared folder" >&2; return 2; }
  printf '%s/%s/task-%03d\n' "${shared%/}" "$run_id" "$((10#$index))"
}

# The command one array task runs (printed, one argument per line, for the test and for logs).
# Arguments: NORMBENCH SHARED RUN_ID TASK_INDEX [extra normbench run arguments...]
nb_task_command() {
  local bin="$1" shared="$2" run_id="$3" index="$4"; shift 4
  local out; out="$(nb_task_out_dir "$shared" "$run_id" "$index")" || return 2
  printf '%s\n' "$bin" run --devices "$(nb_task_devices)" --out "$out" "$@"
}
