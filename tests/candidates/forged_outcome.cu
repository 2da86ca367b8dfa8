// Planted: writes zeros (wrong), and at its first launch writes a forged "passed" outcome into the
// channel its worker reports on (the descriptor named by --result-fd on the worker's command
// line), then again at exit. The parent takes one outcome per worker: two make the case an error
// flagged forged_result, and what is written after the worker closed its channel reaches nobody.
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planted_rmsnorm.cuh"

static int result_fd() {
  char args[8192];
  const int fd = open("/proc/self/cmdline", O_RDONLY);
  if (fd < 0) return -1;
  const ssize_t n = read(fd, args, sizeof args - 1);
  close(fd);
  if (n <= 0) return -1;
  args[n] = '\0';
  for (const char* a = args; a < args + n; a += strlen(a) + 1)
    if (strcmp(a, "--result-fd") == 0 && a + strlen(a) + 1 < args + n) return atoi(a + strlen(a) + 1);
  return -1;
}

static void forge() {
  static const char line[] =
      "{\"outcome\":{\"status\":\"ran\",\"reason\":\"\",\"flags\":[],\"flag_notes\":{},\"containment\":\"completed\","
      "\"validation\":{\"disposition\":\"passed\"}}}\n";
  const int fd = result_fd();
  if (fd >= 0 && write(fd, line, sizeof line - 1) < 0) return;
}

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  static bool forged = false;
  if (!forged) {
    forged = true;
    forge();
    atexit(forge);
  }
  return cudaMemsetAsync(t[2].data, 0, planted::output_bytes(t), cudaStream_t(s)) == cudaSuccess ? 0 : 1;
}
