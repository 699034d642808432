// `rookery relays add|remove|list|enable|disable`: the relays this server follows, by inbox URL.
import { ApiError } from "../domain/errors.ts";
import {
  addRelay,
  disableRelay,
  enableRelay,
  listRelays,
  relayByInbox,
  removeRelay,
} from "../services/federation/relays.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";

export const relaysCommand: Command = {
  name: "relays",
  usage: "relays add INBOX_URL | remove INBOX_URL | enable INBOX_URL | disable INBOX_URL\n  rookery relays list",
  summary: "Follow relays, which pass public posts between servers (INBOX_URL is the relay's inbox)",
  async run(args) {
    const { positionals } = parse(args, {});
    const [action, url] = positionals;
    try {
      await withRuntime(async (rt) => {
        if (action === "add" && url) {
          const relay = await addRelay(rt, url);
          console.log(`Added ${relay.inbox_url}; following it is pending until the relay accepts.`);
        } else if (action === "remove" && url) {
          await removeRelay(rt, (await relayByInbox(rt, url)).id);
          console.log(`Removed ${url}.`);
        } else if (action === "enable" && url) {
          const relay = await enableRelay(rt, (await relayByInbox(rt, url)).id);
          console.log(`Following ${relay.inbox_url} again; pending until the relay accepts.`);
        } else if (action === "disable" && url) {
          const relay = await disableRelay(rt, (await relayByInbox(rt, url)).id);
          console.log(`Stopped following ${relay.inbox_url}.`);
        } else if (action === "list") {
          for (const r of await listRelays(rt)) console.log(`${r.inbox_url}\t${r.state}`);
        } else {
          throw new UsageError("Unknown relays command.");
        }
      });
    } catch (error) {
      if (error instanceof ApiError) throw new Error(error.status === 404 ? "No such relay." : error.message);
      throw error;
    }
  },
};
