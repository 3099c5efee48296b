/* dlca-train's progress report; see progress.h for the two modes. */
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "progress.h"

/* A terminal redraw more often than this only burns time on the tty. */
#define REDRAW_SECONDS 0.1

void progress_init(progress *p, FILE *out, int quiet, uint64_t first, uint64_t total) {
  memset(p, 0, sizeof *p);
  p->out = out;
  p->mode = quiet ? PROGRESS_QUIET : isatty(fileno(out)) ? PROGRESS_TTY : PROGRESS_LINES;
  p->first = first, p->total = total;
  p->t0 = cli_now();
  p->last_draw = -1;
}

double progress_rate(const progress *p, uint64_t epoch) {
  uint64_t e0 = p->warm_time > 0 && epoch > p->warm_epoch ? p->warm_epoch : p->first;
  double dt = cli_now() - (e0 == p->first ? p->t0 : p->warm_time);
  return epoch > e0 && dt > 0 ? (double)(epoch - e0) / dt : 0;
}

static void format_line(const progress *p, uint64_t epoch, double soft, const dlca_eval *hard, char *buf,
                        size_t n) {
  double rate = progress_rate(p, epoch);
  char eta[32], hardtxt[64] = "hard -";
  if (hard) snprintf(hardtxt, sizeof hardtxt, "hard %.6g (%.2f%%)", hard->hard_loss, 100 * hard->accuracy);
  cli_duration(rate > 0 ? (double)(p->total - epoch) / rate : -1, eta, sizeof eta);
  snprintf(buf, n, "epoch %llu/%llu  soft %.6g  %s  %.3g epochs/s  ETA %s", (unsigned long long)epoch,
           (unsigned long long)p->total, soft, hardtxt, rate, eta);
}

void progress_update(progress *p, uint64_t epoch, double soft, const dlca_eval *hard) {
  char line[256];
  if (p->warm_time <= 0) p->warm_epoch = epoch, p->warm_time = cli_now();
  if (p->mode == PROGRESS_TTY) {
    double now = cli_now();
    if (epoch < p->total && p->last_draw >= 0 && now - p->last_draw < REDRAW_SECONDS) return;
    p->last_draw = now;
    format_line(p, epoch, soft, hard, line, sizeof line);
    /* \033[K clears what a longer previous line left behind. */
    fprintf(p->out, "\r%s\033[K", line);
    fflush(p->out);
    p->on_screen = 1;
  } else if (p->mode == PROGRESS_LINES) {
    uint64_t span = p->total > p->first ? p->total - p->first : 1;
    int tenth = (int)((epoch - p->first) * 10 / span);
    if (tenth <= p->last_tenth && epoch < p->total) return;
    if (tenth <= p->last_tenth) tenth = p->last_tenth + 1;
    p->last_tenth = tenth;
    format_line(p, epoch, soft, hard, line, sizeof line);
    fprintf(p->out, "%s\n", line);
    fflush(p->out);
  }
}

void progress_break(progress *p) {
  if (p->on_screen) fputc('\n', p->out);
  p->on_screen = 0;
}
