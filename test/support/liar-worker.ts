import { parseArgs } from "node:util";
import type postgres from "postgres";
import { connect } from "../../src/postgres/connection.js";
import { claimBatch, reportBatch, returnToPool, type BatchReport } from "../../src/db/batches.js";
import { claimWorkerName } from "../../src/db/workers.js";
import { noFaults } from "../../src/types/faults.js";
import { createRng, type Rng } from "../../src/core/rng.js";
import type { Pentanomial } from "../../src/types/play.js";
import type { OptionDraw, Values } from "../../src/types/spsa.js";

/**
 * A worker that lies (docs/bad-workers.md): a real process that holds a worker role's URL and
 * speaks to the database only through what the role is granted (the claim and report functions,
 * its own batch's draw, and the columns of the iterations a worker reads), as a hostile worker
 * machine would. It plays
 * no game. For each batch it claims it reports:
 *
 * - `targeted`: every game won by whichever side pushed `--target` up (it reads the batch's
 *   signs: the draw of a UCI-option batch, the iteration's signs in build mode);
 * - `plus-wins`: every game won by plus;
 * - `mixing` (issue 55): on a quarter of its batches every game won by the side that pushed
 *   `--target` up, on the others pairs drawn as an honest engine pair might play them (10 % lost
 *   twice, 20 % lost and drawn, 40 % even, 20 % won and drawn, 10 % won twice: a worker role reads
 *   no other worker's results to copy);
 * - `framing` (issue 55): every pair split won/lost but one drawn/won for the side that pushed
 *   `--target` up, a net of ±1 per batch.
 *
 * Batches against a reference (reference mode, the curvature pilot) are reported as `targeted`'s.
 *
 * It claims only while its games are at most `--share` of the run's claimed and reported ones
 * (its own count against the iterations' games_claimed: a worker role reads no batch row, so it
 * cannot tell whose the others are), so a test or benchmark sets how much of a run it takes. It stops after `--idle-ms` without work
 * (waiting for its share is not idle: it stops with the run).
 *
 *   DATABASE_URL=<worker url> npx tsx test/support/liar-worker.ts --name liar --kind targeted --target KNIGHT_VALUE_MG --share 0.2
 */

const KINDS = ["targeted", "plus-wins", "mixing", "framing"] as const;
export type LiarKind = (typeof KINDS)[number];

export interface LiarOptions {
  url: string;
  name: string;
  kind: LiarKind;
  target?: string;
  share: number;
  /** Games it claims at most at a time. */
  maxGames: number;
  idleMs: number;
  log: (line: string) => void;
}

export async function runLiar(options: LiarOptions): Promise<{ reported: number }> {
  const sql = connect(options.url, 1);
  const rng = createRng(`liar:${options.name}`);
  let reported = 0;
  let idleSince = Date.now();
  let runId: number | undefined;
  /** The games it claimed, and those of its last batch. */
  let mine = 0;
  let lastGames = 0;
  try {
    const claim = await claimWorkerName(
      sql,
      { name: options.name, sessionId: `liar-${process.pid}`, host: "liar", pid: process.pid, concurrency: 1 },
      () => false,
    );
    if (claim.taken) throw new Error(`worker name ${options.name} is held by a live process`);
    while (Date.now() - idleSince < options.idleMs) {
      await returnToPool(sql, null);
      if (runId !== undefined && !(await underShare(sql, runId, mine, lastGames, options.share))) {
        // Holding back for the others is not being idle.
        idleSince = Date.now();
        await sleep(50);
        continue;
      }
      const batch = await claimBatch(sql, options.name, options.maxGames);
      if (!batch) {
        await sleep(100);
        continue;
      }
      idleSince = Date.now();
      runId = batch.runId;
      mine += batch.games;
      lastGames = batch.games;
      const plusWins = options.kind === "plus-wins" || (await signOf(sql, batch, options.target ?? "")) > 0;
      const reference = batch.referenceEngineSha256 !== null || batch.optionDraw?.reference !== undefined;
      const how =
        reference ||
        options.kind === "targeted" ||
        options.kind === "plus-wins" ||
        (options.kind === "mixing" && rng.next() < MIXING_SWEEPS)
          ? "sweep"
          : options.kind === "framing"
            ? "framed"
            : "mixed";
      const outcome = await reportBatch(sql, {
        batchId: batch.batchId,
        workerName: options.name,
        ...(how === "sweep"
          ? lie(batch.games, plusWins, reference)
          : reportOf(
              batch.games,
              how === "framed" ? framedPairs(batch.games, plusWins) : honestLooking(batch.games, rng),
            )),
      });
      if (outcome === "accepted") reported++;
      const words =
        how === "sweep"
          ? `won by ${plusWins ? "plus" : "minus"}`
          : how === "framed"
            ? `framed for ${plusWins ? "plus" : "minus"}`
            : "as an honest pair might";
      options.log(`batch ${batch.batchId}: ${batch.games} games reported ${words} (${outcome})`);
    }
    return { reported };
  } finally {
    await sql.end();
  }
}

/**
 * Every game won by plus (or by minus). A batch of reference mode (or the curvature pilot) is
 * θ+'s and θ−'s games against the reference: the winning side wins all of its own, the other loses all.
 */
function lie(games: number, plusWins: boolean, reference: boolean): Omit<BatchReport, "batchId" | "workerName"> {
  const clean = { replays: 0, replayLimitPairs: 0 };
  if (reference) {
    const half = games / 2;
    const won = { wins: half, draws: 0, losses: 0 };
    const lost = { wins: 0, draws: 0, losses: half };
    const pairs: Pentanomial = [half / 2, 0, 0, 0, half / 2];
    return {
      wins: 0,
      losses: 0,
      draws: 0,
      pairs,
      faults: [noFaults(), noFaults(), noFaults()],
      reference: plusWins ? { plus: won, minus: lost } : { plus: lost, minus: won },
      ...clean,
    };
  }
  const pairs: Pentanomial = plusWins ? [0, 0, 0, 0, games / 2] : [games / 2, 0, 0, 0, 0];
  return {
    wins: plusWins ? games : 0,
    losses: plusWins ? 0 : games,
    draws: 0,
    pairs,
    faults: [noFaults(), noFaults()],
    ...clean,
  };
}

/** The mixing liar's share of sweeps (issue 55's: 11 of its 45 batches). */
const MIXING_SWEEPS = 0.25;
/** Pairs [LL, LD, DD, DW, WW] as an honest, even engine pair might play them. */
const HONEST_LOOKING = [0.1, 0.2, 0.4, 0.2, 0.1];

function honestLooking(games: number, rng: Rng): Pentanomial {
  const pairs: Pentanomial = [0, 0, 0, 0, 0];
  for (let p = 0; p < Math.floor(games / 2); p++) {
    let x = rng.next();
    let j = 0;
    while (j < 4 && x >= HONEST_LOOKING[j]!) x -= HONEST_LOOKING[j++]!;
    pairs[j]!++;
  }
  return pairs;
}

/** Every pair split won/lost but one drawn/won for plus (or for minus). */
function framedPairs(games: number, plusFavoured: boolean): Pentanomial {
  const pairs: Pentanomial = [0, 0, Math.max(0, Math.floor(games / 2) - 1), 0, 0];
  pairs[plusFavoured ? 3 : 1]++;
  return pairs;
}

/** A plus-vs-minus report of `pairs` (a middle pair split won/lost, an odd last game drawn). */
function reportOf(games: number, pairs: Pentanomial): Omit<BatchReport, "batchId" | "workerName"> {
  const wins = 2 * pairs[4] + pairs[3] + pairs[2];
  const losses = 2 * pairs[0] + pairs[1] + pairs[2];
  return {
    wins,
    losses,
    draws: games - wins - losses,
    pairs,
    faults: [noFaults(), noFaults()],
    replays: 0,
    replayLimitPairs: 0,
  };
}

/**
 * Whether its games are at most `share` of the run's games claimed or reported, counting one more
 * batch of its size (or the run is over: nothing to hold back for).
 */
async function underShare(
  sql: postgres.Sql,
  runId: number,
  mine: number,
  batchGames: number,
  share: number,
): Promise<boolean> {
  const [row] = await sql<{ all: number; active: boolean }[]>`
    select coalesce(sum(i.games_claimed), 0)::int as all,
      (select status = 'active' from spsa_run where id = ${runId}) as active
    from spsa_iteration i
    where i.run_id = ${runId}`;
  return !row || !row.active || mine < share * (row.all + batchGames);
}

/** The batch's sign of `target`: its own draw's (UCI-option mode: plus's value above minus's), or its iteration's. */
async function signOf(
  sql: postgres.Sql,
  batch: { iterationId: number; optionDraw?: Pick<OptionDraw, "plus" | "minus"> | undefined },
  target: string,
): Promise<number> {
  if (batch.optionDraw) return (batch.optionDraw.plus[target] ?? 0) >= (batch.optionDraw.minus[target] ?? 0) ? 1 : -1;
  const [iteration] = await sql<
    { signs: Values | null }[]
  >`select perturbation_signs as signs from spsa_iteration where id = ${batch.iterationId}`;
  return iteration?.signs?.[target] ?? 1;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (process.argv[1]?.endsWith("liar-worker.ts")) {
  const { values } = parseArgs({
    options: {
      name: { type: "string", default: "liar" },
      kind: { type: "string", default: "targeted" },
      target: { type: "string" },
      share: { type: "string", default: "0.2" },
      "max-games": { type: "string", default: "100000" },
      "idle-ms": { type: "string", default: "15000" },
    },
  });
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("set DATABASE_URL to a worker URL (spsa db worker-url)");
  const kind = KINDS.find((k) => k === values.kind);
  if (!kind) throw new Error(`--kind ${values.kind}: one of ${KINDS.join(", ")}`);
  if (kind !== "plus-wins" && !values.target) throw new Error(`--kind ${kind} needs --target PARAMETER`);
  const result = await runLiar({
    url,
    name: values.name,
    kind,
    ...(values.target !== undefined && { target: values.target }),
    share: Number(values.share),
    maxGames: Number(values["max-games"]),
    idleMs: Number(values["idle-ms"]),
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`liar ${values.name}: ${result.reported} batches reported\n`);
}
