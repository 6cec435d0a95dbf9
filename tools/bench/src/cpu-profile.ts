// Preloaded into a service (NODE_OPTIONS=--import=…/cpu-profile.js, which refuses --cpu-prof):
// profiles the whole process and writes BENCH_CPU_PROFILE_DIR/<pid>.cpuprofile when it exits.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const directory = process.env.BENCH_CPU_PROFILE_DIR;
if (directory) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.start");
  // A same-thread session answers synchronously, so the profile is written before the process ends.
  process.once("exit", () => {
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(`${directory}/${process.pid}.cpuprofile`, JSON.stringify(result.profile));
    });
  });
}
