interface RunLike {
  id: string;
  autouserId: string;
  agentIndex: number;
  createdAt: string;
}

/**
 * Names each run for people: its autouser and agent, and, when the same autouser and agent ran more than once on
 * the evaluation, which run it was in the order they were started ("run 2"), so two rows never read the same.
 */
export function runLabels(
  runs: readonly RunLike[],
  nameOf: (autouserId: string) => string,
): Map<string, string> {
  const groups = new Map<string, RunLike[]>();
  for (const run of runs) {
    const key = `${run.autouserId}\u0000${run.agentIndex}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  const labels = new Map<string, string>();
  for (const group of groups.values()) {
    const ordered = [...group].sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
    );
    ordered.forEach((run, i) => {
      const base = `${nameOf(run.autouserId)} · agent ${run.agentIndex + 1}`;
      labels.set(run.id, ordered.length > 1 ? `${base} · run ${i + 1}` : base);
    });
  }
  return labels;
}
