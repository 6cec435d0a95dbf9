import { Copy, DockerfileParser, From, Healthcheck, type Instruction, JSONInstruction } from "dockerfile-ast";

/** One build stage: its FROM line's image or earlier stage, its name, and its instructions. */
interface Stage {
  name: string | undefined;
  base: string;
  instructions: Instruction[];
}

export interface ImageRequirements {
  /** The stage `docker build --target` names for this image. */
  target: string;
  healthcheck: boolean;
}

const digestPinned = /@sha256:[0-9a-f]{64}$/;
const numericNonRootUser = /^(\d+)(:\d+)?$/;
const dependencyInstall = /\b(npm|pnpm|yarn)\s+(install|i|ci|add)\b/;
const prodDeploy = /\bpnpm\b[^;&|]*\bdeploy\b[^;&|]*--prod\b[^;&|]*?\s("?)(\/[^\s";&|]+)\1/g;

function words(instruction: Instruction): string[] {
  return instruction.getArguments().map((argument) => argument.getValue());
}

/** `${NAME}` and `$NAME` in a FROM line, from the defaults of the ARGs declared before the first FROM. */
function substitute(image: string, defaults: Map<string, string>): string {
  return image.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => defaults.get(name) ?? whole);
}

function parseStages(text: string): Stage[] {
  const stages: Stage[] = [];
  const argumentDefaults = new Map<string, string>();
  for (const instruction of DockerfileParser.parse(text).getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === "ARG" && stages.length === 0) {
      const [name, ...value] = (instruction.getArgumentsContent() ?? "").split("=");
      if (name && value.length > 0)
        argumentDefaults.set(
          name.trim(),
          value
            .join("=")
            .trim()
            .replace(/^"(.*)"$/, "$1"),
        );
    }
    if (instruction instanceof From) {
      stages.push({
        base: substitute(instruction.getImage() ?? "", argumentDefaults),
        name: instruction.getBuildStage() ?? undefined,
        instructions: [],
      });
    } else if (keyword !== "ARG" || stages.length > 0) {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

/** The target stage and the stages it is built on, nearest first. */
function stageChain(stages: Stage[], target: string): Stage[] {
  const chain: Stage[] = [];
  let stage = stages.find((candidate) => candidate.name === target);
  while (stage && !chain.includes(stage)) {
    chain.push(stage);
    const base = stage.base;
    stage = stages.find((candidate) => candidate.name === base);
  }
  return chain;
}

/** The instruction of this keyword in force in the target image: the nearest stage's last one. */
function effective(chain: Stage[], keyword: string): Instruction | undefined {
  for (const stage of chain) {
    const found = stage.instructions.filter((instruction) => instruction.getKeyword() === keyword).at(-1);
    if (found) return found;
  }
  return undefined;
}

/** Directories `pnpm deploy --prod DIR` fills in a stage; a `$variable` stands for one path segment. */
function deployDirectories(stage: Stage): RegExp[] {
  return stage.instructions
    .filter((instruction) => instruction.getKeyword() === "RUN")
    .flatMap((instruction) => [...(instruction.getArgumentsContent() ?? "").matchAll(prodDeploy)])
    .map((match) => {
      const pattern = (match[2] ?? "")
        .replace(/\/+$/, "")
        .split(/(\$\{?\w+\}?)/)
        .map((part, index) => (index % 2 ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("");
      return new RegExp(`^${pattern}(/.*)?$`);
    });
}

function copyProblems(stages: Stage[], copy: Copy): string[] {
  const fromStage = copy.getFromFlag()?.getValue();
  const sources = copyArguments(copy).slice(0, -1);
  if (!fromStage)
    return [`COPY ${sources.join(" ")} takes from the build context, not a \`pnpm deploy --prod\` output`];
  const from = stages.find((stage) => stage.name === fromStage);
  const allowed = from ? deployDirectories(from) : [];
  return sources
    .filter((source) => !allowed.some((directory) => directory.test(source.replace(/\/+$/, ""))))
    .map((source) => `COPY ${source} from ${fromStage} is not inside a \`pnpm deploy --prod\` output directory`);
}

function copyArguments(copy: Copy): string[] {
  const json = copy.getJSONStrings();
  return json.length > 0 ? json.map((argument) => argument.getJSONValue()) : words(copy);
}

/**
 * What is wrong with one image of this Dockerfile, judged from its text alone: every base
 * pinned by digest, a numeric non-root USER, tini as the entrypoint, a HEALTHCHECK where
 * required, and nothing in the image's own stages but `pnpm deploy --prod` output (no build
 * context, no installs, no ADD).
 */
export function imageProblems(text: string, requirements: ImageRequirements): string[] {
  const stages = parseStages(text);
  const stageNames = new Set(stages.map((stage) => stage.name));
  const problems = stages
    .filter((stage) => !stageNames.has(stage.base) && !digestPinned.test(stage.base))
    .map((stage) => `FROM ${stage.base} is not pinned by an @sha256 digest`);

  const chain = stageChain(stages, requirements.target);
  if (chain.length === 0) return [...problems, `no stage named ${requirements.target}`];

  const user = effective(chain, "USER");
  const id = user && numericNonRootUser.exec(words(user).join(" "));
  if (!id || Number(id[1]) === 0) {
    problems.push(`USER must be a numeric non-root id, found ${user ? words(user).join(" ") : "none (root)"}`);
  }

  const entrypoint = effective(chain, "ENTRYPOINT");
  const program = entrypoint instanceof JSONInstruction ? entrypoint.getJSONStrings()[0]?.getJSONValue() : undefined;
  if (!program?.endsWith("/tini") && program !== "tini") {
    problems.push(`ENTRYPOINT must be tini in exec form (signals, zombie reaping), found ${program ?? "none"}`);
  }

  const healthcheck = effective(chain, "HEALTHCHECK");
  const healthcheckMode =
    healthcheck instanceof Healthcheck ? healthcheck.getSubcommand()?.getValue().toUpperCase() : undefined;
  if (requirements.healthcheck && healthcheckMode !== "CMD") {
    problems.push("HEALTHCHECK missing");
  }

  for (const instruction of chain.flatMap((stage) => stage.instructions)) {
    const keyword = instruction.getKeyword();
    if (keyword === "ADD") problems.push(`ADD ${instruction.getArgumentsContent()}: only COPY of deploy output`);
    if (instruction instanceof Copy) problems.push(...copyProblems(stages, instruction));
    if (keyword === "RUN" && dependencyInstall.test(instruction.getArgumentsContent() ?? "")) {
      problems.push(`RUN ${instruction.getArgumentsContent()} installs packages into the image`);
    }
  }
  return problems;
}
