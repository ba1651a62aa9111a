/* A driver's use of the spv-opt C API: optimize a kernel with -O for pvc, compare with the
 * bytes spv-opt's command line wrote, exercise the errors, and run 8 threads at once.
 *
 *   optimize IN.spv EXPECTED.spv      (EXPECTED = spv-opt -O --target pvc IN.spv -o EXPECTED.spv)
 *
 * Prints "ok" and exits 0 when everything holds; otherwise says what failed and exits 1. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spvopt.h"

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "FAILED line %d: ", __LINE__);      \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
      exit(1);                                            \
    }                                                     \
  } while (0)

static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  CHECK(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *data = malloc((size_t)n);
  CHECK(data && fread(data, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
  fclose(f);
  *size = (size_t)n;
  return data;
}

/* Messages: count them per level; remember the last error. */
struct messages {
  pthread_mutex_t lock;
  int errors, warnings;
  char last_error[512];
};

static void consume(spvopt_message_level level, const char *source, const char *message,
                    void *user_data) {
  struct messages *m = user_data;
  pthread_mutex_lock(&m->lock);
  if (level == SPVOPT_MESSAGE_ERROR) {
    m->errors++;
    snprintf(m->last_error, sizeof m->last_error, "%s: %s", source, message);
  } else {
    m->warnings++;
  }
  pthread_mutex_unlock(&m->lock);
}

static const uint32_t *in_words;
static size_t in_count;
static const unsigned char *expected;
static size_t expected_size;
static const spvopt_optimizer *shared;

static int same_as_expected(const spvopt_binary *b) {
  return b->word_count * 4 == expected_size && memcmp(b->code, expected, expected_size) == 0;
}

/* Each thread: 4 runs of the shared optimizer and 2 of an optimizer of its own. */
static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < 4; i++) {
    spvopt_binary *out = NULL;
    CHECK(spvopt_optimizer_run(shared, in_words, in_count, &out, NULL) == SPVOPT_SUCCESS,
          "concurrent run");
    CHECK(same_as_expected(out), "concurrent run output differs");
    spvopt_binary_destroy(out);
  }
  spvopt_optimizer *own = NULL;
  CHECK(spvopt_optimizer_create("pvc", &own) == SPVOPT_SUCCESS, "create in thread");
  CHECK(spvopt_optimizer_register_pass_from_flag(own, "-O") == SPVOPT_SUCCESS, "-O");
  for (int i = 0; i < 2; i++) {
    spvopt_binary *out = NULL;
    CHECK(spvopt_optimizer_run(own, in_words, in_count, &out, NULL) == SPVOPT_SUCCESS, "own run");
    CHECK(same_as_expected(out), "own optimizer output differs");
    spvopt_binary_destroy(out);
  }
  spvopt_optimizer_destroy(own);
  return NULL;
}

int main(int argc, char **argv) {
  CHECK(argc == 3, "usage: optimize IN.spv EXPECTED.spv");
  CHECK(spvopt_abi_version() == 1, "ABI version");
  CHECK(strlen(spvopt_version()) > 0, "version");
  size_t in_size;
  unsigned char *in = read_file(argv[1], &in_size);
  in_words = (const uint32_t *)in;
  in_count = in_size / 4;
  expected = read_file(argv[2], &expected_size);
  unsigned char *input_copy = malloc(in_size);
  memcpy(input_copy, in, in_size);

  struct messages msgs = {PTHREAD_MUTEX_INITIALIZER, 0, 0, {0}};
  spvopt_optimizer *opt = NULL;
  CHECK(spvopt_optimizer_create("pvc", &opt) == SPVOPT_SUCCESS, "create");
  CHECK(spvopt_optimizer_set_message_consumer(opt, consume, &msgs) == SPVOPT_SUCCESS, "consumer");
  CHECK(spvopt_optimizer_register_pass_from_flag(opt, "-O") == SPVOPT_SUCCESS, "register -O");

  /* The optimization, with statistics. */
  spvopt_binary *out = NULL;
  char *stats = NULL;
  CHECK(spvopt_optimizer_run(opt, in_words, in_count, &out, &stats) == SPVOPT_SUCCESS,
        "run: %s", msgs.last_error);
  CHECK(same_as_expected(out), "output (%zu words) differs from the CLI's (%zu bytes)",
        out->word_count, expected_size);
  CHECK(stats && strstr(stats, "\"fuse-block-loads\"") && strstr(stats, "\"target\":\"pvc\""),
        "statistics JSON: %s", stats ? stats : "(null)");
  CHECK(memcmp(in, input_copy, in_size) == 0, "the input was modified");
  spvopt_string_destroy(stats);
  spvopt_binary_destroy(out);

  /* Errors: codes and one message each, nothing returned. */
  spvopt_optimizer *bad = NULL;
  CHECK(spvopt_optimizer_create("no-such-gpu", &bad) == SPVOPT_ERROR_INVALID_ARGUMENT && !bad,
        "unknown target");
  int before = msgs.errors;
  CHECK(spvopt_optimizer_register_pass_from_flag(opt, "--no-such-pass") ==
            SPVOPT_ERROR_INVALID_ARGUMENT && msgs.errors == before + 1,
        "unknown pass");
  CHECK(spvopt_optimizer_register_pipeline(opt, "dce(") == SPVOPT_ERROR_INVALID_ARGUMENT,
        "bad pipeline");
  CHECK(spvopt_optimizer_set_target_env(opt, "spv9.9") == SPVOPT_ERROR_INVALID_ARGUMENT,
        "bad environment");
  uint32_t garbage[5] = {0x12345678, 0x00010400, 0, 100, 0}; /* not a SPIR-V magic number */
  out = NULL;
  before = msgs.errors;
  CHECK(spvopt_optimizer_run(opt, garbage, 5, &out, NULL) == SPVOPT_ERROR_INVALID_BINARY &&
            !out && msgs.errors == before + 1,
        "garbage input: %s", msgs.last_error);
  CHECK(spvopt_optimizer_run(opt, NULL, 0, &out, NULL) == SPVOPT_ERROR_INVALID_ARGUMENT, "null");

  /* --max-changes=N as on the command line: with 0, dce rewrites nothing and the module comes
     back byte for byte; a count that is not a number is refused. */
  spvopt_optimizer *limited = NULL;
  CHECK(spvopt_optimizer_create("pvc", &limited) == SPVOPT_SUCCESS, "create");
  CHECK(spvopt_optimizer_register_pass_from_flag(limited, "--dce") == SPVOPT_SUCCESS, "--dce");
  CHECK(spvopt_optimizer_register_pass_from_flag(limited, "--max-changes=0") == SPVOPT_SUCCESS,
        "--max-changes=0");
  CHECK(spvopt_optimizer_register_pass_from_flag(limited, "--max-changes=x") ==
            SPVOPT_ERROR_INVALID_ARGUMENT,
        "--max-changes=x");
  out = NULL;
  CHECK(spvopt_optimizer_run(limited, in_words, in_count, &out, NULL) == SPVOPT_SUCCESS, "run");
  CHECK(out->word_count == in_count && memcmp(out->code, in_words, in_size) == 0,
        "dce with --max-changes=0 changed the module");
  spvopt_binary_destroy(out);
  spvopt_optimizer_destroy(limited);

  /* 8 threads at once: one shared optimizer (run is const) and one each. */
  spvopt_optimizer *quiet = NULL;
  CHECK(spvopt_optimizer_create("pvc", &quiet) == SPVOPT_SUCCESS, "create");
  CHECK(spvopt_optimizer_register_pass_from_flag(quiet, "-O") == SPVOPT_SUCCESS, "-O");
  shared = quiet;
  pthread_t threads[8];
  for (int i = 0; i < 8; i++) CHECK(pthread_create(&threads[i], NULL, worker, NULL) == 0, "thread");
  for (int i = 0; i < 8; i++) pthread_join(threads[i], NULL);

  spvopt_optimizer_destroy(quiet);
  spvopt_optimizer_destroy(opt);
  spvopt_optimizer_destroy(NULL);
  spvopt_binary_destroy(NULL);
  free(in);
  free(input_copy);
  free((void *)expected);
  printf("ok (%d warnings, %d errors reported through the callback)\n", msgs.warnings, msgs.errors);
  return 0;
}
