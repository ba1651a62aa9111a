/* A driver's use of the spv-opt C API: optimize a kernel with -O for pvc, compare with the
 * bytes spv-opt's command line wrote, exercise the errors, receive located diagnostics through
 * the structured callback, and run 8 threads at once.
 *
 *   optimize IN.spv EXPECTED.spv F64MMA.spv
 *
 * EXPECTED = spv-opt -O --target pvc IN.spv -o EXPECTED.spv; F64MMA: one kernel with one f64
 * MMA (%r, in function %main, block %entry, with ids 13, 1 and 12), which legalize warns about
 * and lower-mma cannot lower for pvc.
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
  char last_text[1024]; /* the last message as received (no source prefix) */
};

static void consume(spvopt_message_level level, const char *source, const char *message,
                    void *user_data) {
  struct messages *m = user_data;
  pthread_mutex_lock(&m->lock);
  if (level == SPVOPT_MESSAGE_ERROR) {
    m->errors++;
    snprintf(m->last_error, sizeof m->last_error, "%s: %s", source, message);
    snprintf(m->last_text, sizeof m->last_text, "%s", message);
  } else {
    m->warnings++;
  }
  pthread_mutex_unlock(&m->lock);
}

/* Structured diagnostics: the last one (strings copied) and how many arrived. */
struct diagnostics {
  int count;
  spvopt_message_level level;
  char source[64], opcode[64], message[512], summary[256];
  uint32_t result_id, function_id, block_id, repeats;
  int has_opcode, has_summary;
};

static void copy(char *to, size_t size, const char *from) { snprintf(to, size, "%s", from ? from : ""); }

static void consume_diagnostic(const spvopt_diagnostic *d, void *user_data) {
  struct diagnostics *s = user_data;
  s->count++;
  s->level = d->level;
  copy(s->source, sizeof s->source, d->source);
  copy(s->opcode, sizeof s->opcode, d->opcode);
  copy(s->message, sizeof s->message, d->message);
  copy(s->summary, sizeof s->summary, d->summary);
  s->has_opcode = d->opcode != NULL;
  s->has_summary = d->summary != NULL;
  s->result_id = d->result_id;
  s->function_id = d->function_id;
  s->block_id = d->block_id;
  s->repeats = d->count;
}

/* One run of `flag` for pvc on `words` with both callbacks; returns its result code. */
static spvopt_result run_with_callbacks(const uint32_t *words, size_t count, const char *flag,
                                        struct messages *msgs, struct diagnostics *diags) {
  spvopt_optimizer *o = NULL;
  CHECK(spvopt_optimizer_create("pvc", &o) == SPVOPT_SUCCESS, "create");
  CHECK(spvopt_optimizer_set_message_consumer(o, consume, msgs) == SPVOPT_SUCCESS, "consumer");
  CHECK(spvopt_optimizer_set_diagnostic_consumer(o, consume_diagnostic, diags) == SPVOPT_SUCCESS,
        "diagnostic consumer");
  CHECK(spvopt_optimizer_set_validation(o, 0) == SPVOPT_SUCCESS, "validation off");
  CHECK(spvopt_optimizer_register_pass_from_flag(o, flag) == SPVOPT_SUCCESS, "%s", flag);
  spvopt_binary *out = NULL;
  spvopt_result r = spvopt_optimizer_run(o, words, count, &out, NULL);
  spvopt_binary_destroy(out);
  spvopt_optimizer_destroy(o);
  return r;
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
  CHECK(argc == 4, "usage: optimize IN.spv EXPECTED.spv F64MMA.spv");
  CHECK(spvopt_abi_version() == 1, "ABI version");
  CHECK(strlen(spvopt_version()) > 0, "version");
  size_t in_size;
  unsigned char *in = read_file(argv[1], &in_size);
  in_words = (const uint32_t *)in;
  in_count = in_size / 4;
  expected = read_file(argv[2], &expected_size);
  unsigned char *input_copy = malloc(in_size);
  memcpy(input_copy, in, in_size);

  struct messages msgs = {PTHREAD_MUTEX_INITIALIZER, 0, 0, {0}, {0}};
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

  /* Structured diagnostics, located by ids: lower-mma cannot lower the f64 MMA for pvc. The
     message callback gets the one line spv-opt prints; the diagnostic callback the error itself
     (level, source pass, opcode, result / function / block ids, message, summary). */
  size_t mma_size;
  unsigned char *mma = read_file(argv[3], &mma_size);
  const uint32_t *mma_words = (const uint32_t *)mma;
  struct messages m2 = {PTHREAD_MUTEX_INITIALIZER, 0, 0, {0}, {0}};
  struct diagnostics d = {0};
  CHECK(run_with_callbacks(mma_words, mma_size / 4, "--lower-mma", &m2, &d) == SPVOPT_ERROR_PASS,
        "lower-mma on an f64 MMA must fail");
  CHECK(m2.errors == 1 && d.count == 1, "one error each way: %d text, %d structured", m2.errors,
        d.count);
  CHECK(d.level == SPVOPT_MESSAGE_ERROR && strcmp(d.source, "lower-mma") == 0, "source %s",
        d.source);
  CHECK(d.has_opcode && strcmp(d.opcode, "OpSubgroupMatrixMultiplyAccumulateINTEL") == 0,
        "opcode %s", d.opcode);
  CHECK(d.result_id == 13 && d.function_id == 1 && d.block_id == 12, "ids %u %u %u", d.result_id,
        d.function_id, d.block_id);
  CHECK(strstr(d.message, "f64") && !strstr(d.message, "in function"), "message: %s", d.message);
  CHECK(d.has_summary && strcmp(d.summary, "1 MMA(s) cannot be lowered for target pvc") == 0,
        "summary: %s", d.summary);
  CHECK(d.repeats == 1, "count %u", d.repeats);
  /* The text line: "lower-mma: SUMMARY: LOCATION: MESSAGE", from the same diagnostic. */
  char expected_line[1024];
  snprintf(expected_line, sizeof expected_line,
           "lower-mma: %s: OpSubgroupMatrixMultiplyAccumulateINTEL %%13 in function %%1 (my_kernel), "
           "block %%12: %s",
           d.summary, d.message);
  CHECK(strcmp(m2.last_text, expected_line) == 0, "text line:\n  %s\nexpected:\n  %s",
        m2.last_text, expected_line);
  /* legalize warns about the same MMA (no pass can lower it): a located warning. */
  struct messages m3 = {PTHREAD_MUTEX_INITIALIZER, 0, 0, {0}, {0}};
  struct diagnostics w = {0};
  CHECK(run_with_callbacks(mma_words, mma_size / 4, "--legalize", &m3, &w) == SPVOPT_SUCCESS,
        "legalize");
  CHECK(m3.warnings == 1 && w.count == 1 && w.level == SPVOPT_MESSAGE_WARNING, "%d %d",
        m3.warnings, w.count);
  CHECK(strcmp(w.source, "legalize") == 0 && w.result_id == 13 && w.function_id == 1 &&
            w.block_id == 12 && w.repeats == 1 && !w.has_summary,
        "warning %s %u %u %u", w.source, w.result_id, w.function_id, w.block_id);
  /* An error without a location: ids 0, opcode null. */
  struct diagnostics g = {0};
  struct messages m4 = {PTHREAD_MUTEX_INITIALIZER, 0, 0, {0}, {0}};
  CHECK(run_with_callbacks(garbage, 5, "--dce", &m4, &g) == SPVOPT_ERROR_INVALID_BINARY, "load");
  CHECK(g.count == 1 && m4.errors == 1 && strcmp(g.source, "load") == 0 && !g.has_opcode &&
            g.result_id == 0 && g.function_id == 0 && g.block_id == 0 &&
            strcmp(m4.last_text, g.message) == 0,
        "unlocated error: %s / %s", g.message, m4.last_text);
  free(mma);

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
