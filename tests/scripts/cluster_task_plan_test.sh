#!/usr/bin/env bash
# The Slurm template's own logic without Slurm: task index -> device list and output folder.
set -euo pipefail
source "$(dirname "$0")/../../scripts/cluster/task_plan.sh"
fail=0
expect() {  # expect NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL $1: expected '$2', got '$3'"; fail=1; else echo "ok   $1"; fi
}
unset NB_DEVICES
expect "devices default" all "$(nb_task_devices)"
expect "devices narrowed" 0,2 "$(NB_DEVICES=0,2 nb_task_devices)"
expect "task 0" /shared/run1/task-000 "$(nb_task_out_dir /shared/ run1 0)"
expect "task 17" /shared/run1/task-017 "$(nb_task_out_dir /shared run1 17)"
expect "task 010 is decimal" /s/r/task-010 "$(nb_task_out_dir /s r 010)"
expect "task 1234" /s/r/task-1234 "$(nb_task_out_dir /s r 1234)"
for bad in "" -1 x 1.5; do
  if nb_task_out_dir /s r "$bad" 2>/dev/null; then echo "FAIL index '$bad' accepted"; fail=1; else echo "ok   index '$bad' refused"; fi
done
for bad in "" ../x a/b .hidden 'a b'; do
  if nb_task_out_dir /s "$bad" 1 2>/dev/null; then echo "FAIL run id '$bad' accepted"; fail=1; else echo "ok   run id '$bad' refused"; fi
done
expect "command" "nb run --devices all --out /s/r/task-003 --suite quick" \
  "$(nb_task_command nb /s r 3 --suite quick | paste -sd' ')"
expect "command field 5 is the out folder" /s/r/task-003 "$(nb_task_command nb /s r 3 | sed -n 6p)"
exit $fail
