# Timing-only probe (results are wrong) for sweep140.sh: lib/cl/cl_trainer.c runs dlca_backward's push
# with PROBE_CPW cells a unit in the local memory that 3 take today (their rows' floats, less the
# patches of the cells past 3), their act rows PACT = r floats
# apart (r < the planned row, so that the rows overlap; the last one whole): what a smaller row (16-bit
# activations, or fewer stored layers) would buy in cells a phase, before writing it.
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, (p, old)
    s = s.replace(old, new)
rep("static size_t backward_local(", "static size_t probe_full;\nstatic size_t backward_local(")
rep("      s->push = 1, s->pact = row;\n  }",
    """      s->push = 1, s->pact = row;
    const char *pe = getenv("PROBE_CPW");
    if (pe && s->push) {
      const int c = atoi(pe);
      /* the rows' floats of the shipped 3 cells, less the patches of the cells past 3 */
      const size_t avail = 3 * row - (size_t)(c - 3) * 9 * (size_t)s->C - 16;
      size_t r = (avail - row) / (size_t)(c - 1);
      if (r > row) r = row;
      s->cpw = c, s->pact = r, probe_full = row;
      s->units = (cells + (size_t)s->cpw - 1) / (size_t)s->cpw;
    }
  }""")
rep("LOCAL(&a, cpw * s->pact), LOCAL(", "LOCAL(&a, probe_full ? (cpw - 1) * s->pact + probe_full : cpw * s->pact), LOCAL(")
open(p, "w").write(s)
