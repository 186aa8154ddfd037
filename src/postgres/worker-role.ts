import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import type postgres from "postgres";
import { InputError } from "../core/errors.js";
import { WORK_CHANNEL } from "./channels.js";
import type { Sql } from "./sql.js";

/**
 * The worker role (docs/worker-role.md): one login role per worker machine, each a member
 * of the group role spsa_workers, which holds the privileges below and nothing else.
 */

export const WORKER_GROUP = "spsa_workers";
const LOGIN_PREFIX = "spsa_worker_";

/**
 * EVERYTHING a worker role may do, granted to spsa_workers (each line gets `to spsa_workers`).
 * Applied after every migration (grantWorkerPrivileges), after revoking all else, so this list
 * is the whole truth: a worker-written table or column added later is one line here, e.g.
 * `grant execute on function spsa_record_fault` for a SECURITY DEFINER function that writes it.
 * Writes go only through the functions of migrations/0012_worker_role.sql, which check in the
 * database what a worker may write; reads are what a worker plays with.
 */
const WORKER_PRIVILEGES = [
  "grant usage on schema public",
  // Only what it plays its own batches with (docs/worker-role.md#what-the-role-reads), column by column.
  // Nothing of spsa_worker (other machines' names, hosts, pids, sessions), spsa_batch (who holds which
  // batch, its results, held_at, undo_id) or spsa_perturbation (others' results, what θ took): its own
  // claimed batch comes from spsa_claimed_batch. Nothing that moves when the master sets batches aside
  // or applies them: the iterations' result counters, θ, an option run's applied count.
  // An iteration: its binaries and their signatures, clock, settings, θ± and signs (what its binaries
  // differ by), and how many of its games are claimed (in games, no batch or name).
  "grant select (id, run_id, iteration_number, status, target_games, games_claimed, " +
    "plus_engine_path, minus_engine_path, plus_engine_sha256, minus_engine_sha256, " +
    "plus_engine_signature, minus_engine_signature, reference_engine_path, reference_engine_sha256, " +
    "reference_engine_signature, timelow_ms, timehigh_ms, settings, plus_parameters, minus_parameters, " +
    "perturbation_signs) on spsa_iteration",
  "grant select on spsa_binary",
  // A UCI-option run's signed parameter list, which a claim sets its engines' options from.
  "grant select (run_id, parameters, parameter_names, parameters_signature) on spsa_option_run",
  "grant execute on function spsa_claimed_batch",
  // Not spsa_run.config (the run's config as the master read it: it may name a database URL), nor θ,
  // nor who holds the run's master lease.
  "grant select (id, uid, name, status, seed) on spsa_run",
  // A worker checks that the schema is current; it never migrates (applyMigrations).
  "grant usage on schema drizzle",
  "grant select on drizzle.__drizzle_migrations",
  "grant execute on function spsa_return_to_pool, spsa_lock_worker_name, spsa_take_worker_name, spsa_record_worker",
  "grant execute on function spsa_claim_batch, spsa_heartbeat, spsa_report_batch",
  "grant execute on function spsa_refuse_batch",
  "grant execute on function spsa_release_claims",
  "grant execute on function spsa_keep_faulted_games",
  // Nothing of UCI-option mode: the master draws every batch and moves θ; a worker reads its draw.
] as const;

/** Whether this session may grant the worker privileges: spsa_workers exists and it owns the tables. */
export async function canGrantWorkerPrivileges(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ can: boolean }[]>`
    select exists (select 1 from pg_roles where rolname = ${WORKER_GROUP})
       and pg_has_role(current_user, (select relowner from pg_class where oid = 'public.spsa_run'::regclass), 'USAGE') as can`;
  return row?.can ?? false;
}

/**
 * What the role may do beyond WORKER_PRIVILEGES because PUBLIC may: on PostgreSQL 14 and
 * older, PUBLIC creates tables in schema public unless the owner revoked it.
 */
export async function inheritedFromPublic(sql: Sql, role: string): Promise<string[]> {
  const [row] = await sql<{ schema: boolean; database: boolean }[]>`
    select has_schema_privilege(${role}, 'public', 'CREATE') as schema, has_database_privilege(${role}, current_database(), 'CREATE') as database`;
  return [
    ...(row?.schema
      ? ["create tables in schema public (revoke with: revoke create on schema public from public)"]
      : []),
    ...(row?.database ? ["create schemas (revoke with: revoke create on database <name> from public)"] : []),
  ];
}

/**
 * Gives spsa_workers exactly WORKER_PRIVILEGES (idempotent; in the caller's transaction, so a
 * worker never sees a gap).
 */
export async function grantWorkerPrivileges(tx: postgres.TransactionSql): Promise<void> {
  for (const schema of ["public", "drizzle"]) {
    // Revoking a table's privileges revokes its column privileges too.
    for (const kind of ["tables", "sequences", "functions"])
      await tx.unsafe(`revoke all on all ${kind} in schema ${schema} from ${WORKER_GROUP}`);
    await tx.unsafe(`revoke all on schema ${schema} from ${WORKER_GROUP}`);
  }
  for (const privilege of WORKER_PRIVILEGES) await tx.unsafe(`${privilege} to ${WORKER_GROUP}`);
}

/** The login role of a worker machine called `machine` (lower-case letters, digits, `_`, `-`). */
export function workerLoginRole(machine: string): string {
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(machine)) {
    throw new InputError(
      "--name",
      `a worker machine's name is 1 to 40 lower-case letters, digits, "_" or "-", starting with a ` +
        `letter or digit; got "${machine}"`,
    );
  }
  return `${LOGIN_PREFIX}${machine}`;
}

/**
 * Creates the machine's login role with a new random password, or gives an existing one a new
 * password (the old one stops working for new connections). Only a SCRAM verifier of the password
 * reaches the server (as psql's \password does), so no server log or catalog holds the password.
 */
export async function issueWorkerLogin(
  sql: postgres.Sql,
  machine: string,
): Promise<{ role: string; password: string; created: boolean }> {
  const role = workerLoginRole(machine);
  const password = randomBytes(32).toString("base64url");
  const verifier = scramVerifier(password);
  const created = await sql.begin(async (tx) => {
    const [group] = await tx`select 1 from pg_roles where rolname = ${WORKER_GROUP}`;
    if (!group) await createGroupUnlessRaced(tx);
    const existing = await loginRoleState(tx, role);
    if (existing === "other")
      throw new InputError(
        "--name",
        `database role "${role}" exists and is not a worker role (not in ${WORKER_GROUP}); choose another name`,
      );
    const options = `login nosuperuser nocreatedb nocreaterole noreplication nobypassrls password ${literal(verifier)}`;
    if (existing) await tx.unsafe(`alter role ${identifier(role)} ${options}`);
    else await tx.unsafe(`create role ${identifier(role)} ${options} in role ${WORKER_GROUP}`);
    await grantWorkerPrivileges(tx);
    return !existing;
  });
  return { role, password, created };
}

/**
 * Roles belong to the whole server: two databases of one server (or two owners issuing logins at
 * once) may both find the group missing; the loser of that race finds it made.
 */
async function createGroupUnlessRaced(tx: postgres.TransactionSql): Promise<void> {
  try {
    await tx.savepoint((sp) => sp.unsafe(`create role ${WORKER_GROUP} nologin`));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "42710" && code !== "23505") throw error;
  }
}

/**
 * Drops the machine's login role and ends its sessions (a pool would otherwise keep working);
 * in the same transaction its claimed batches go back to the pool and its worker names become
 * free (a name belongs to a role only while the role exists: spsa_lock_worker_name). Returns
 * whether there was one, the batches released, and whether its sessions could be ended by this role.
 */
export async function revokeWorkerLogin(
  sql: postgres.Sql,
  machine: string,
): Promise<{ dropped: boolean; sessionsEnded: boolean; released: number }> {
  const role = workerLoginRole(machine);
  const existing = await loginRoleState(sql, role);
  if (existing === undefined) return { dropped: false, sessionsEnded: true, released: 0 };
  if (existing === "other")
    throw new InputError(
      "--name",
      `database role "${role}" is not a worker role (not in ${WORKER_GROUP}); it is left alone`,
    );
  const released = await sql.begin(async (tx) => {
    const [row] = await tx<{ batches: number }[]>`select batches from spsa_release_role(${role})`;
    await tx.unsafe(`drop role ${identifier(role)}`);
    return row?.batches ?? 0;
  });
  // Needs superuser or pg_signal_backend: an owner with only CREATEROLE is told to restart the worker's server side.
  const sessionsEnded = await sql`select pg_terminate_backend(pid) from pg_stat_activity where usename = ${role}`.then(
    () => true,
    () => false,
  );
  // A session that was still claiming until it was ended: what it claimed goes back too.
  const [late] = await sql<{ batches: number }[]>`select batches from spsa_release_role(${role})`;
  await sql`select pg_notify(${WORK_CHANNEL}, '')`;
  return { dropped: true, sessionsEnded, released: released + (late?.batches ?? 0) };
}

/** Whether the role is absent, a worker login (a member of spsa_workers), or some other role. */
async function loginRoleState(sql: Sql, role: string): Promise<undefined | "worker" | "other"> {
  const [row] = await sql<{ member: boolean }[]>`
    select exists (select 1 from pg_auth_members m join pg_roles g on g.oid = m.roleid where m.member = r.oid and g.rolname = ${WORKER_GROUP}) as member
    from pg_roles r where r.rolname = ${role}`;
  return row === undefined ? undefined : row.member ? "worker" : "other";
}

/** `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (RFC 5802, 7677), as Postgres stores it. */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, "sha256");
  const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();
  const storedKey = createHash("sha256").update(hmac(salted, "Client Key")).digest();
  const serverKey = hmac(salted, "Server Key");
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}

function identifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
