// V8 flags per service, as the Dockerfile sets them in each image's NODE_OPTIONS: a small young
// generation (4 MB semi-spaces saved edge ~20 MB for ~4 % more GC; router keeps 8, as 4 saved it
// only ~12 MB for ~5 % more CPU), and an old one capped below the pod's memory limit, which also
// keeps V8 from letting the heap grow to 4x its live size between full collections: without
// both the console reached 235 MB under load instead of 126 (docs/perf/hot-path.md).
const nodeFlags: Record<string, string[]> = {
  edge: ["--max-semi-space-size=4", "--max-old-space-size=320"],
  router: ["--max-semi-space-size=8", "--max-old-space-size=448"],
  ledger: ["--max-semi-space-size=4", "--max-old-space-size=448"],
  video: ["--max-semi-space-size=4", "--max-old-space-size=448"],
  console: ["--max-semi-space-size=4", "--max-old-space-size=224"],
};

/**
 * The service's flags, less those its NODE_OPTIONS also sets: Node lets a flag on the command
 * line win over NODE_OPTIONS, so without this a bench or test could not try another heap size.
 */
export function nodeFlagsFor(service: string, nodeOptions = ""): string[] {
  const given = new Set(nodeOptions.split(/\s+/).map(flagName));
  return (nodeFlags[service] ?? []).filter((flag) => !given.has(flagName(flag)));
}

// Node reads `--max_old_space_size` as `--max-old-space-size`.
const flagName = (option: string) => option.replace(/=.*/, "").replaceAll("_", "-");
