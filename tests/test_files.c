/* The library's file handling under attack and accident (issue 35): a
 * cache directory planted by another user or writable by others is not
 * used; a FIFO, a device or a directory where a file is read never hangs
 * and is refused by name; the atomic writer replaces only regular files,
 * follows links, keeps modes and honours the umask, and removes the temp
 * files of dead writers; duplicate JSON keys are refused. The FIFO cases
 * run in a child killed after a few seconds, so that a hang is a failure. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cl_util.h"

#define HANG_S 10

/* Runs fn(arg) in a child with an alarm: its return value, 0 on success, or
 * -1 if it hung or crashed. The child prints what went wrong. */
static int within(int (*fn)(const char *), const char *arg) {
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) { /* Check may have its own SIGALRM handler: the default kills */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    signal(SIGALRM, SIG_DFL);
    alarm(HANG_S);
    _exit(fn(arg));
  }
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The same for a case that uses OpenCL: a child must not inherit a running
 * OpenCL runtime, so under CK_FORK=no (where this process may already run
 * one) it runs here, and a hang ends the whole runner with SIGALRM. */
static int within_cl(int (*fn)(const char *), const char *arg) {
  const char *env = getenv("CK_FORK");
  if (!env || strcmp(env, "no") != 0) return within(fn, arg);
  signal(SIGALRM, SIG_DFL);
  alarm(HANG_S);
  int r = fn(arg);
  alarm(0);
  return r;
}

/* 1 if msg names path and says kind; else prints why and returns 0. */
static int says(const char *msg, const char *path, const char *kind) {
  if (strstr(msg, path) && strstr(msg, kind)) return 1;
  fprintf(stderr, "expected a message naming %s and \"%s\", got: %s\n", path, kind, msg);
  return 0;
}

static const char *fifo_in(const char *dir, const char *name) {
  static char p[8][1100];
  static int k;
  char *s = p[k++ % 8];
  snprintf(s, 1100, "%s/%s", dir, name);
  ck_assert_msg(mkfifo(s, 0600) == 0, "mkfifo %s: %s", s, strerror(errno));
  return s;
}

static dlca_trainer *small_trainer(dlca_model **m) {
  dlca_model_shape s = tu_small_shape(2, 2, 0, 1, 0, DLCA_WIRING_UNIQUE);
  if (dlca_model_new(&s, 41, m) != DLCA_OK) return NULL;
  dlca_train_config cfg = tu_small_train_config();
  dlca_trainer *t;
  return dlca_trainer_new(NULL, *m, &cfg, &t) == DLCA_OK ? t : NULL;
}

/* ---- readers: FIFOs, devices, directories, huge files ---- */

static int load_model_fifo(const char *path) {
  dlca_model *m;
  int rc = dlca_model_load(path, &m);
  return rc == DLCA_EIO && says(dlca_last_error(), path, "is a FIFO") ? 0 : 1;
}

static int load_tuning_fifo(const char *path) {
  dlca__tuning_table t;
  int rc = dlca__tuning_load(path, &t);
  return rc == DLCA_ETUNING && says(dlca_last_error(), path, "is a FIFO") ? 0 : 1;
}

static int resume_from(const char *path) {
  dlca_model *m = NULL;
  dlca_trainer *t = small_trainer(&m);
  if (!t) return 2;
  int rc = dlca_trainer_load_checkpoint(t, path);
  if (rc != DLCA_ECHECKPOINT) fprintf(stderr, "%s: got %s (%s)\n", path, dlca_strerror_name(rc), dlca_last_error());
  const char *kind = !strcmp(path, "/dev/zero") ? "is a character device"
                     : strstr(path, "fifo")     ? "is a FIFO"
                     : strstr(path, "huge")     ? "bytes, more than the"
                                                : "is a directory";
  int ok = rc == DLCA_ECHECKPOINT && says(dlca_last_error(), path, kind);
  dlca_trainer_free(t);
  dlca_model_free(m);
  return ok ? 0 : 1;
}

START_TEST(test_fifo_model_and_tuning) {
  const char *dir = tu_tmpdir("files-fifo");
  ck_assert_int_eq(within(load_model_fifo, fifo_in(dir, "model.json")), 0);
  ck_assert_int_eq(within(load_tuning_fifo, fifo_in(dir, "table.json")), 0);
  /* a directory is "a directory", not "not valid JSON" */
  dlca__tuning_table t;
  ck_assert_int_eq(dlca__tuning_load(dir, &t), DLCA_ETUNING);
  ck_assert_msg(strstr(dlca_last_error(), dir) && strstr(dlca_last_error(), "is a directory"), "%s",
                dlca_last_error());
}
END_TEST

/* --resume of a FIFO, /dev/zero (which would be read until memory runs
 * out), a directory and a file far larger than the checkpoint can be. */
START_TEST(test_resume_not_a_checkpoint) {
  const char *dir = tu_tmpdir("files-resume");
  ck_assert_int_eq(within(resume_from, fifo_in(dir, "ck.fifo")), 0);
  ck_assert_int_eq(within(resume_from, "/dev/zero"), 0);
  ck_assert_int_eq(within(resume_from, dir), 0);
  char huge[1100];
  snprintf(huge, sizeof huge, "%s/huge.ckpt", dir);
  int fd = open(huge, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(ftruncate(fd, (off_t)8 << 30), 0); /* sparse: no disk used */
  close(fd);
  ck_assert_int_eq(within(resume_from, huge), 0);
  unlink(huge);
}
END_TEST

static int model_dev_zero(const char *path) {
  dlca_model *m;
  return dlca_model_load(path, &m) == DLCA_EIO && says(dlca_last_error(), path, "character device") ? 0 : 1;
}

START_TEST(test_model_dev_zero) {
  ck_assert_int_eq(within(model_dev_zero, "/dev/zero"), 0);
}
END_TEST

START_TEST(test_model_duplicate_key) {
  const char *dir = tu_tmpdir("files-dup");
  const char *p = tu_write(dir, "dup.json", "{\"format\": \"dlca-model\", \"channels\": 1, \"channels\": 2}");
  dlca_model *m;
  ck_assert_int_eq(dlca_model_load(p, &m), DLCA_EPARSE);
  ck_assert_msg(strstr(dlca_last_error(), "dup.json") && strstr(dlca_last_error(), "duplicate") &&
                    strstr(dlca_last_error(), "channels"),
                "%s", dlca_last_error());
}
END_TEST

/* ---- the cache: FIFOs, planted and open directories ---- */

static int new_context(dlca_context **ctx) {
  int rc = dlca_context_new(getenv("DLCA_CL_DEVICE"), ctx);
  return rc == DLCA_OK ? 0 : rc == DLCA_ENOPLATFORM ? 77 : 2;
}

/* A FIFO at <cache>/tuning.json: the context comes up, with a warning. */
static int context_with_fifo_table(const char *unused) {
  (void)unused;
  dlca_context *ctx;
  int r = new_context(&ctx);
  if (r) return r;
  int ok = says(dlca_context_warnings(ctx), "tuning.json", "is a FIFO") && !ctx->have_user;
  dlca_context_free(ctx);
  return ok ? 0 : 1;
}

/* Builds selftest.cl in a new context: 0, or why not. */
static int build_once(dlca_build_info *bi) {
  dlca_context *ctx;
  int r = new_context(&ctx);
  if (r) return r;
  r = dlca_context_build(ctx, "selftest.cl", NULL, bi);
  if (r) fprintf(stderr, "%s\n", dlca_last_error());
  dlca_context_free(ctx);
  return r ? 3 : 0;
}

/* A FIFO at a program's entry: compiled, and the entry rebuilt as a file. */
static int build_over_fifo_entry(const char *unused) {
  (void)unused;
  dlca_build_info a, b;
  struct stat st;
  int r = build_once(&a);
  if (r) return r;
  if (unlink(a.cache_file) != 0 || mkfifo(a.cache_file, 0600) != 0) return 4;
  if ((r = build_once(&b))) return r;
  if (b.from_cache != DLCA_BUILD_COMPILED || strcmp(a.cache_file, b.cache_file) != 0) return 5;
  return stat(b.cache_file, &st) == 0 && S_ISREG(st.st_mode) ? 0 : 6;
}

START_TEST(test_fifo_in_cache) {
  fifo_in(tcl_fresh_env("files-cache-fifo"), "tuning.json");
  int r = within_cl(context_with_fifo_table, NULL);
  if (r == 77) {
    printf("SKIP test_fifo_in_cache: no OpenCL platform\n");
    return;
  }
  ck_assert_int_eq(r, 0);
  tcl_fresh_env("files-cache-fifo2");
  ck_assert_int_eq(within_cl(build_over_fifo_entry, NULL), 0);
}
END_TEST

/* Builds selftest.cl in a fresh context; its warnings in w (static). */
static int build_from(dlca_build_info *bi, const char **w) {
  static char warn[4096];
  dlca_context *ctx = tcl_context();
  ck_assert_msg(dlca_context_build(ctx, "selftest.cl", NULL, bi) == DLCA_OK, "%s", dlca_last_error());
  snprintf(warn, sizeof warn, "%s", dlca_context_warnings(ctx));
  *w = warn;
  int used = ctx->cache_on;
  dlca_context_free(ctx);
  return used;
}

/* A filled cache made untrusted by `spoil`: the next context warns, names
 * the directory, compiles, and leaves the entry there as it was. */
static void expect_untrusted(const char *tag, void (*spoil)(const char *dir), const char *why) {
  const char *dir = tcl_fresh_env(tag);
  dlca_build_info a, b;
  const char *w;
  ck_assert_int_eq(build_from(&a, &w), 1);
  ck_assert_int_eq(a.from_cache, DLCA_BUILD_COMPILED);
  struct stat before, after;
  ck_assert_int_eq(stat(a.cache_file, &before), 0);
  spoil(dir);
  ck_assert_int_eq(build_from(&b, &w), 0);
  ck_assert_msg(b.from_cache == DLCA_BUILD_COMPILED, "the planted entry was used: %d", b.from_cache);
  ck_assert_msg(strstr(w, "binary cache off") && strstr(w, dir) && strstr(w, why), "%s", w);
  ck_assert_int_eq(stat(a.cache_file, &after), 0);
  ck_assert(before.st_mtime == after.st_mtime && before.st_ino == after.st_ino);
}

static void chown_dir(const char *dir) { ck_assert_int_eq(chown(dir, 65534, 65534), 0); }
static void open_dir(const char *dir) { ck_assert_int_eq(chmod(dir, 0777), 0); }
static void open_programs(const char *dir) {
  char p[1100];
  snprintf(p, sizeof p, "%s/programs", dir);
  ck_assert_int_eq(chmod(p, 0775), 0);
}

/* Another user's directory: the tests run as root here and in CI, which
 * can give it away; elsewhere there is no second uid to use. */
START_TEST(test_cache_other_owner) {
  if (!tcl_platform()) return;
  if (geteuid() != 0) {
    printf("SKIP test_cache_other_owner: not root, and no second uid to own the cache directory\n");
    return;
  }
  expect_untrusted("files-owner", chown_dir, "owned by uid 65534");
}
END_TEST

START_TEST(test_cache_writable_by_others) {
  if (!tcl_platform()) return;
  expect_untrusted("files-open", open_dir, "writable by others");
  expect_untrusted("files-open-programs", open_programs, "writable by its group");
}
END_TEST

/* A group-writable tuning.json in the cache directory is ignored, with a warning. */
START_TEST(test_tuning_writable_by_others) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("files-tuning");
  ck_assert(mkdir(dir, 0700) == 0 || errno == EEXIST);
  const char *p = tu_write(dir, "tuning.json", "{\"format\":\"dlca-tuning\",\"version\":1,\"entries\":[]}");
  ck_assert_int_eq(chmod(p, 0664), 0);
  dlca_context *ctx = tcl_context();
  const char *w = dlca_context_warnings(ctx);
  ck_assert_msg(strstr(w, "tuning.json") && strstr(w, "not trusted"), "%s", w);
  ck_assert_int_eq(ctx->have_user, 0);
  dlca_context_free(ctx);
  ck_assert_int_eq(chmod(p, 0600), 0); /* ours again: read */
  ctx = tcl_context();
  ck_assert_msg(ctx->have_user == 1, "%s", dlca_context_warnings(ctx));
  dlca_context_free(ctx);
}
END_TEST

/* Under umask 002 (user private groups) the cache's own entries must not
 * come out group-writable, or the next run would refuse them. */
START_TEST(test_cache_umask_002) {
  if (!tcl_platform()) return;
  tcl_fresh_env("files-umask");
  mode_t old = umask(002);
  dlca_build_info a, b;
  const char *w;
  ck_assert_int_eq(build_from(&a, &w), 1);
  ck_assert_int_eq(build_from(&b, &w), 1);
  umask(old);
  ck_assert_msg(b.from_cache == DLCA_BUILD_DISK, "not a disk hit: %d; %s", b.from_cache, w);
  struct stat st;
  ck_assert_int_eq(stat(b.cache_file, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0644);
}
END_TEST

START_TEST(test_new_cache_is_private) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("files-private");
  char sub[1100];
  snprintf(sub, sizeof sub, "%s/a/b", dir);
  setenv("DLCA_CL_CACHE_DIR", sub, 1);
  dlca_context *ctx = tcl_context();
  dlca_context_free(ctx);
  const char *subs[] = {"", "/programs", "/orders"};
  for (int i = 0; i < 3; i++) {
    char p[1200];
    struct stat st;
    snprintf(p, sizeof p, "%s%s", sub, subs[i]);
    ck_assert_msg(stat(p, &st) == 0 && (st.st_mode & 0777) == 0700, "%s: mode %o", p, st.st_mode & 0777);
  }
}
END_TEST

/* ---- the atomic writer ---- */

static void expect_not_replaced(const char *path, const char *kind) {
  ck_assert_int_eq(dlca__write_file_atomic(path, "x", 1), DLCA_EIO);
  ck_assert_msg(strstr(dlca_last_error(), path) && strstr(dlca_last_error(), kind) &&
                    strstr(dlca_last_error(), "not replaced"),
                "%s", dlca_last_error());
}

START_TEST(test_write_refuses_special_files) {
  const char *dir = tu_tmpdir("files-special");
  char dev[1100], sub[1100];
  snprintf(dev, sizeof dev, "%s/full", dir);
  /* /dev/full's numbers, in a scratch folder: `--save /dev/full` as root */
  int is_dev = mknod(dev, S_IFCHR | 0666, makedev(1, 7)) == 0;
  if (!is_dev) {
    printf("note: mknod not allowed here (%s); a FIFO stands in for the device\n", strerror(errno));
    ck_assert_int_eq(mkfifo(dev, 0600), 0);
  }
  expect_not_replaced(dev, is_dev ? "is a character device" : "is a FIFO");
  struct stat st;
  ck_assert(lstat(dev, &st) == 0 && (is_dev ? S_ISCHR(st.st_mode) : S_ISFIFO(st.st_mode)));
  expect_not_replaced(fifo_in(dir, "f.json"), "is a FIFO");
  snprintf(sub, sizeof sub, "%s/d", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  expect_not_replaced(sub, "is a directory");
  /* through a link, the message names both */
  char link[1100];
  snprintf(link, sizeof link, "%s/to-dev", dir);
  ck_assert_int_eq(symlink("full", link), 0);
  expect_not_replaced(link, "links to");
  ck_assert_int_eq(tcl_count_files(dir, ".tmp."), 0);
}
END_TEST

static mode_t mode_of(const char *p) {
  struct stat st;
  ck_assert_int_eq(lstat(p, &st), 0);
  return st.st_mode;
}

START_TEST(test_write_follows_links) {
  const char *dir = tu_tmpdir("files-link");
  const char *real = tu_write(dir, "real.json", "old");
  ck_assert_int_eq(chmod(real, 0600), 0);
  char link[1100], dangling[1100], made[1100];
  snprintf(link, sizeof link, "%s/link.json", dir);
  ck_assert_int_eq(symlink("real.json", link), 0);
  ck_assert_int_eq(dlca__write_file_atomic(link, "new", 3), DLCA_OK);
  ck_assert(S_ISLNK(mode_of(link)));
  char *t = tu_read(real, NULL);
  ck_assert_str_eq(t, "new");
  free(t);
  ck_assert_int_eq(mode_of(real) & 0777, 0600);
  /* a link to a file not there yet makes that file */
  snprintf(dangling, sizeof dangling, "%s/later.json", dir);
  snprintf(made, sizeof made, "%s/made.json", dir);
  ck_assert_int_eq(symlink(made, dangling), 0);
  ck_assert_int_eq(dlca__write_file_atomic(dangling, "m", 1), DLCA_OK);
  ck_assert(S_ISLNK(mode_of(dangling)) && S_ISREG(mode_of(made)));
}
END_TEST

START_TEST(test_write_modes) {
  const char *dir = tu_tmpdir("files-modes");
  char p[1100];
  snprintf(p, sizeof p, "%s/new.json", dir);
  mode_t old = umask(077);
  int rc = dlca__write_file_atomic(p, "a", 1);
  umask(old);
  ck_assert_msg(rc == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg((mode_of(p) & 0777) == 0600, "umask 077 gave mode %o", mode_of(p) & 0777);
  /* an existing 0600 file stays 0600 under the usual umask 022; 0640 stays 0640 */
  old = umask(022);
  ck_assert_int_eq(dlca__write_file_atomic(p, "b", 1), DLCA_OK);
  ck_assert_int_eq(mode_of(p) & 0777, 0600);
  ck_assert_int_eq(chmod(p, 0640), 0);
  ck_assert_int_eq(dlca__write_file_atomic(p, "c", 1), DLCA_OK);
  ck_assert_int_eq(mode_of(p) & 0777, 0640);
  snprintf(p, sizeof p, "%s/fresh.json", dir);
  ck_assert_int_eq(dlca__write_file_atomic(p, "d", 1), DLCA_OK);
  umask(old);
  ck_assert_int_eq(mode_of(p) & 0777, 0644);
}
END_TEST

/* A pid that no process has now: a child that has exited and been reaped. */
static pid_t dead_pid(void) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) _exit(0);
  waitpid(pid, NULL, 0);
  return pid;
}

static const char *aged(const char *dir, const char *name, int age_s) {
  const char *p = tu_write(dir, name, "a full-size model, once");
  struct timespec ts[2];
  clock_gettime(CLOCK_REALTIME, &ts[0]);
  ts[0].tv_sec -= age_s;
  ts[1] = ts[0];
  ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
  return p;
}

START_TEST(test_write_cleans_stale_temps) {
  const char *dir = tu_tmpdir("files-stale");
  char target[1100], name[200];
  snprintf(target, sizeof target, "%s/m.json", dir);
  snprintf(name, sizeof name, "m.json.tmp.%ld.a1b2c3", (long)dead_pid());
  aged(dir, name, 60);                         /* killed writer: removed */
  aged(dir, "m.json.tmp.Xy12Zq", 2 * 3600);    /* old mkstemp name, hours old: removed */
  snprintf(name, sizeof name, "m.json.tmp.%ld.d4e5f6", (long)getppid());
  aged(dir, name, 60);                         /* a live process's: kept */
  aged(dir, "m.json.tmp.Ab34Cd", 60);          /* old name, recent: kept */
  snprintf(name, sizeof name, "other.json.tmp.%ld.a1b2c3", (long)dead_pid());
  aged(dir, name, 60);                         /* another path's: kept */
  ck_assert_int_eq(tcl_count_files(dir, ".tmp."), 5);
  ck_assert_int_eq(dlca__write_file_atomic(target, "x", 1), DLCA_OK);
  ck_assert_int_eq(tcl_count_files(dir, "m.json.tmp."), 2);
  ck_assert_int_eq(tcl_count_files(dir, "other.json.tmp."), 1);
  ck_assert_int_eq(tcl_count_files(dir, ".tmp.Xy12Zq"), 0);
}
END_TEST

Suite *suite_files(void) {
  Suite *s = suite_create("files");
  TCase *tc = tcase_create("files");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_fifo_model_and_tuning);
  tcase_add_test(tc, test_resume_not_a_checkpoint);
  tcase_add_test(tc, test_model_dev_zero);
  tcase_add_test(tc, test_model_duplicate_key);
  tcase_add_test(tc, test_fifo_in_cache);
  tcase_add_test(tc, test_cache_other_owner);
  tcase_add_test(tc, test_cache_writable_by_others);
  tcase_add_test(tc, test_tuning_writable_by_others);
  tcase_add_test(tc, test_new_cache_is_private);
  tcase_add_test(tc, test_cache_umask_002);
  tcase_add_test(tc, test_write_refuses_special_files);
  tcase_add_test(tc, test_write_follows_links);
  tcase_add_test(tc, test_write_modes);
  tcase_add_test(tc, test_write_cleans_stale_temps);
  suite_add_tcase(s, tc);
  return s;
}
