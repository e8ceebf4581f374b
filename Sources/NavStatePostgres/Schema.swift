import PostgresClient

/// The tables, created at first start. Version 2 (version 1 had no feed tables: they are added
/// to it); a database whose schema is newer (a later NavState made it) is refused, since this
/// server would misread it.
enum Schema {
  static let version: Int64 = 2

  /// Slots: a node's sessions and who holds them now. `epoch` is the fencing number, raised by
  /// every claim and every release, and checked by every commit with the holder's name.
  /// `wanted_until`: the slot's own node is running again and asks for it back; until then no
  /// other node may claim it (so that it is not taken over again as it is given back).
  /// Records: every creation, change, settled idempotency key, migration and end, in the
  /// journal's binary format, in commit order (`id`, from a sequence without a cache, so that
  /// it grows in commit order whichever connection commits). One index, (slot, session, id):
  /// a slot is loaded by it, each session's rows in order (sessions do not depend on each
  /// other), and a session's rows are deleted by it; every other index would cost every commit
  /// (version 1 had two, on (slot, id) and on session: version 2 drops them). Graphs: every
  /// graph version sessions may be on. Feed: the backend feed's items (``PostgresFeed``), in the order of the transaction
  /// that wrote them (`tx`) and then of `id`; feed state: the feed's epoch (which its cursors
  /// carry) and the place up to which items were deleted for retention.
  static let create = """
    SET client_min_messages = warning;
    BEGIN;
    SELECT pg_advisory_xact_lock(7220531);
    CREATE TABLE IF NOT EXISTS navstate_schema (version integer NOT NULL);
    CREATE TABLE IF NOT EXISTS navstate_slots (
      slot text PRIMARY KEY,
      owner text,
      epoch bigint NOT NULL,
      lease_until timestamptz NOT NULL,
      wanted_until timestamptz
    );
    CREATE TABLE IF NOT EXISTS navstate_records (
      id bigint GENERATED ALWAYS AS IDENTITY,
      slot text NOT NULL,
      session bytea NOT NULL,
      payload bytea NOT NULL
    );
    CREATE INDEX IF NOT EXISTS navstate_records_slot_session ON navstate_records (slot, session, id);
    DROP INDEX IF EXISTS navstate_records_slot;
    DROP INDEX IF EXISTS navstate_records_session;
    CREATE TABLE IF NOT EXISTS navstate_graphs (
      name text NOT NULL,
      version bigint NOT NULL,
      source bytea NOT NULL,
      PRIMARY KEY (name, version)
    );
    CREATE TABLE IF NOT EXISTS navstate_feed (
      tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
      id bigint GENERATED ALWAYS AS IDENTITY,
      slot text NOT NULL,
      session bytea NOT NULL,
      kind smallint NOT NULL,
      item bytea NOT NULL,
      PRIMARY KEY (tx, id)
    );
    CREATE TABLE IF NOT EXISTS navstate_feed_state (
      epoch bigint NOT NULL,
      trimmed_tx xid8 NOT NULL,
      trimmed_id bigint NOT NULL
    );
    INSERT INTO navstate_feed_state (epoch, trimmed_tx, trimmed_id)
    SELECT 1 + floor(random() * 4294967294)::int8, '0'::xid8, 0
    WHERE NOT EXISTS (SELECT 1 FROM navstate_feed_state);
    INSERT INTO navstate_schema (version) SELECT 2 WHERE NOT EXISTS (SELECT 1 FROM navstate_schema);
    UPDATE navstate_schema SET version = 2 WHERE version < 2;
    COMMIT;
    """

  /// Creates the tables if missing; throws the version found when it is newer than this server's.
  static func prepare(_ database: Database) throws(SchemaFailure) {
    let found: Int64
    do throws(PostgresError) {
      found = try current(database)
    } catch {
      throw .database(error)
    }
    guard found <= version else { throw .newer(found) }
    guard found < version else { return }
    do throws(PostgresError) {
      _ = try database.withConnection { (connection) throws(PostgresError) in
        try connection.execute(create, timeout: max(database.timeout, 30))
      }
    } catch {
      throw .database(error)
    }
  }

  /// The schema's version in the database, 0 if it has none yet.
  private static func current(_ database: Database) throws(PostgresError) -> Int64 {
    let exists = try database.query("SELECT to_regclass('navstate_schema') IS NOT NULL")
    guard exists.bool(0, 0) == true else { return 0 }
    let found = try database.query("SELECT coalesce(max(version), 0)::int8 FROM navstate_schema")
    return found.integer(0, 0) ?? 0
  }

  enum SchemaFailure: Error {
    case newer(Int64)
    case database(PostgresError)
  }
}
