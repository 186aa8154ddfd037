import { readFileSync } from "node:fs";
import { storedRunConfig } from "../config/secrets.js";
import { openRun, type RunRow } from "../db/runs.js";
import { DatabaseHandle } from "../postgres/database-handle.js";
import { sweepBuilds } from "../engine-build/retention.js";
import { crashPoint } from "./crash-points.js";
import { describeLeaseOwner, leasedError, masterIdentity, RunLease, takeRun } from "./run-lease.js";
import { InputError } from "../core/errors.js";
import type { StatusLine } from "../core/status-line.js";
import { writeFileAtomic } from "../core/write-atomic.js";
import { updateParamValues } from "../params/params-update.js";
import { valuesOf, type Param } from "../params/params.js";
import { withStoredNames } from "../params/element-names.js";
import type { Database } from "../postgres/connection.js";
import type { SigningKey } from "../signing/key-file.js";
import type { TuningConfig } from "../types/config.js";
import type { Values } from "../types/spsa.js";

export interface MasterOptions {
  database: Database;
  config: TuningConfig;
  /** Already checked against the engine's constants (loadRunInputs), before the database was opened. */
  params: Param[];
  paramsFile: string;
  runName: string;
  /** Signs every binary the run stores (docs/signing.md). */
  signingKey: SigningKey;
  /** Start a new run even if one of this name exists (the old one keeps its history). */
  fresh?: boolean;
  /** Seed of a new run's random draws (default: random); the same seed replays the same perturbations. */
  seed?: string;
  log?: (line: string) => void;
  /** Where progress lines go (stderr by default). */
  status?: StatusLine;
  signal?: AbortSignal;
}

/** A master's options once it has its run's lease: its writes go through `lease` (src/master/run-lease.ts). */
export type LeasedOptions = MasterOptions & { lease: RunLease };

export interface MasterSummary {
  runName: string;
  iterations: number;
  initial: Values;
  final: Values;
}

export function masterLog(options: MasterOptions): (line: string) => void {
  return options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
}

/** A run this master opened and has the lease of: `lease.signal` replaces the master's own signal from here on. */
export interface OpenedTuningRun {
  run: RunRow;
  created: boolean;
  params: Param[];
  lease: RunLease;
  /** The database as the master reached it to open the run (stopped by the master's own signal). */
  db: DatabaseHandle;
  log: (line: string) => void;
}

/** What a master's steps work with once it has its run's lease (src/master/run-lease.ts). */
export interface MasterContext {
  options: LeasedOptions;
  run: RunRow;
  /** The run's parameters as the master opened it: their θ then (the steps move θ on, and pass it apart). */
  params: Param[];
  /** The database, retried through outages, stopped by the lease's signal. */
  db: DatabaseHandle;
  log: (line: string) => void;
}

/**
 * The run of this name, resumed or started from params.toml, and its parameters at the run's θ;
 * the run becomes this master's (refused while another live master has its lease). Release the
 * lease when done (`withTuningRun`).
 */
export async function openTuningRun(options: MasterOptions): Promise<OpenedTuningRun> {
  const log = masterLog(options);
  const db = new DatabaseHandle(options.database.sql, log, options.signal);
  const identity = masterIdentity(options.config.games.leaseSeconds);
  const opened = await db.retrying((sql) =>
    openRun(sql, {
      name: options.runName,
      fresh: options.fresh ?? false,
      seed: options.seed,
      config: storedRunConfig(options.config),
      reference: options.config.spsa.reference,
      values: valuesOf(options.params),
      master: takeRun(identity),
    }),
  );
  if (opened.leasedBy) throw leasedError(options.runName, opened.leasedBy);
  const { run, created, tookOverFrom } = opened;
  const lease = new RunLease(options.database, run, identity, options.signal);
  if (tookOverFrom)
    log(`run "${run.name}": taken over from ${describeLeaseOwner(tookOverFrom)}: it is gone, or missed its heartbeats`);
  try {
    return { run, created, params: withValues(options.params, run, options.paramsFile, log), lease, db, log };
  } catch (error) {
    await lease.release();
    throw error;
  }
}

/**
 * Runs a master's work on its run: under the run's lease (its signal in place of the master's),
 * which is released at the end, on a stop or an error. A master that lost the run stops with
 * the error that says so, whatever its work was doing when it learnt it.
 */
export async function withTuningRun<T>(
  options: MasterOptions,
  opened: OpenedTuningRun,
  work: (master: MasterContext) => Promise<T>,
): Promise<T> {
  const { lease, run, params, log } = opened;
  try {
    return await work({
      options: { ...options, signal: lease.signal, lease },
      run,
      params,
      db: opened.db.stoppedBy(lease.signal),
      log,
    });
  } catch (error) {
    throw lease.lost ?? error;
  } finally {
    await lease.release();
  }
}

/**
 * θ comes from the database; params.toml supplies bounds, steps and targets. A parameter new
 * in params.toml joins the run at its value; one removed from it is refused, since its constant
 * would silently fall back to the engine's default (freeze it instead). A parameter the run
 * holds under its element's former name (`KNIGHT_VALUE_0` for `[KNIGHT_VALUE_MG]`) keeps that
 * name in the run (withStoredNames).
 */
function withValues(tables: Param[], run: RunRow, paramsFile: string, log: (line: string) => void): Param[] {
  const stored = run.currentParameters;
  const { params, renamed } = withStoredNames(tables, stored);
  for (const r of renamed) log(`[${r.table}] is ${r.stored} in run "${run.name}", which started under that name`);
  const names = new Set(params.map((p) => p.name));
  const removed = Object.keys(stored).filter((name) => !names.has(name));
  if (removed.length > 0) {
    throw new InputError(
      paramsFile,
      `run "${run.name}" tunes ${removed.join(", ")}, which this file no longer has; put ` +
        `${removed.length > 1 ? "them" : "it"} back ` +
        `with frozen = true to keep ${removed.length > 1 ? "their" : "its"} value, or start another ` +
        `run with --fresh or --name`,
    );
  }
  for (const p of params.filter((p) => !(p.name in stored))) log(`${p.name} joins run "${run.name}" at ${p.value}`);
  return params.map((p) => ({ ...p, value: stored[p.name] ?? p.value }));
}

/** Brings params.toml in line with θ, keeping its comments and layout; atomic. */
export function syncParamsFile(paramsFile: string, values: Values, log: (line: string) => void): void {
  const text = readFileSync(paramsFile, "utf8");
  const updated = updateParamValues(text, values, paramsFile);
  if (updated === text) return;
  writeFileAtomic(paramsFile, updated, { mode: 0o644 });
  log(`${paramsFile} updated from the database`);
}

/**
 * Removes what nothing can run any more (src/engine-build/retention.ts): the run's build
 * folders (`over`: the run is complete, its reference and engine too) but those of the
 * iterations its master is `building`, verifications', and the database's bytes.
 */
export async function sweepRun(
  { options, run, db }: MasterContext,
  over: boolean,
  building: readonly number[] = [],
): Promise<void> {
  await db.retrying((sql) =>
    sweepBuilds(sql, options.config.build.outputDir, { name: run.name, over, building }, () =>
      crashPoint("builds-swept"),
    ),
  );
}
