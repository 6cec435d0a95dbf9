import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

// Loaded with `--import` (Node 20 refuses --cpu-prof in NODE_OPTIONS): profiles the whole
// process and writes the profile to BENCH_CPU_PROFILE when it exits. A same-thread
// inspector session answers synchronously, so the exit handler can still collect it.
const path = process.env.BENCH_CPU_PROFILE;
if (path) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 1000 });
  session.post("Profiler.start");
  process.once("exit", () => {
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(path, JSON.stringify(result.profile));
    });
  });
}
