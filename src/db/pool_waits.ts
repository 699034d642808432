// How long queries wait for a database connection, and how many connections are lent out: Kysely's
// driver is wrapped so that each lending is counted and, while metrics are on, timed. PostgreSQL
// lends the pool's connections; SQLite has one per thread, lent here to one query or transaction
// at a time, in turn (Kysely's own lock for single-connection drivers sits where no wrapper can
// time it).
import type { DatabaseConnection, Dialect, DialectAdapter, Driver } from "kysely";

export interface PoolWaits {
  /** Told how many seconds each lending waited; null while nobody listens (metrics off). */
  observe: ((seconds: number) => void) | null;
  /** Connections lent out now. */
  inUse: number;
}

/** One connection, lent to one user at a time, first come first served. */
class Turns {
  #busy = false;
  readonly #waiting: (() => void)[] = [];

  /** Takes the connection if it is free (most of the time: then nothing is awaited). */
  tryTake(): boolean {
    if (this.#busy) return false;
    this.#busy = true;
    return true;
  }

  /** Waits for the connection, which `give` hands over already taken. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#busy = false;
  }
}

export function timedDialect(dialect: Dialect, waits: PoolWaits): Dialect {
  const adapter = dialect.createAdapter();
  const turns = adapter.supportsMultipleConnections ? null : new Turns();
  return {
    // With turns taken here, Kysely need not take its own.
    createAdapter: () =>
      turns ? (Object.create(adapter, { supportsMultipleConnections: { value: true } }) as DialectAdapter) : adapter,
    createDriver: () => timedDriver(dialect.createDriver(), waits, turns),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

function timedDriver(driver: Driver, waits: PoolWaits, turns: Turns | null): Driver {
  const acquire = driver.acquireConnection.bind(driver);
  const release = driver.releaseConnection.bind(driver);
  driver.acquireConnection = async (...args: Parameters<Driver["acquireConnection"]>): Promise<DatabaseConnection> => {
    const observe = waits.observe;
    const started = observe ? performance.now() : 0;
    if (turns && !turns.tryTake()) await turns.wait();
    let connection: DatabaseConnection;
    try {
      connection = await acquire(...args);
    } catch (error) {
      turns?.give();
      throw error;
    }
    waits.inUse++;
    observe?.((performance.now() - started) / 1000);
    return connection;
  };
  driver.releaseConnection = async (...args: Parameters<Driver["releaseConnection"]>): Promise<void> => {
    waits.inUse--;
    try {
      await release(...args);
    } finally {
      turns?.give();
    }
  };
  return driver;
}
