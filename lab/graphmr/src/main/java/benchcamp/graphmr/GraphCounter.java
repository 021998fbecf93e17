package benchcamp.graphmr;

/** The job counters of every graphmr job (group {@code benchcamp.graphmr.GraphCounter}). */
public enum GraphCounter {
  /** Edge lines read (comments and blank lines excluded), self-loops included. */
  INPUT_EDGES,
  /** Edge lines whose two ends are the same node: skipped. */
  SELF_LOOPS,
  /** Distinct nodes with at least one (non-loop) edge. */
  NODES,
  /** Distinct undirected edges (duplicates and both directions counted once). */
  EDGES,
  /** mutual_friends job 2: connected pairs reduced (one per distinct edge). */
  PAIRS,
  /** mutual_friends job 2: sum over pairs of the number of mutual friends (3 x triangles). */
  MUTUAL_FRIENDS,
  /** triangles job 1: open wedges v-u-w emitted, u the lowest id of the three. */
  WEDGES,
  /** triangles job 2: wedges closed by an edge, each triangle exactly once. */
  TRIANGLES,
  /** components: nodes whose label went down in one iteration (0 = converged). */
  LABEL_CHANGES,
  /** components final job: number of propagation iterations run (set once). */
  ITERATIONS,
  /** components final job: number of connected components. */
  COMPONENTS
}
