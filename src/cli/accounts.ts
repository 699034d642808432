// `rookery accounts …`: local accounts from the command line.
import { ApiError } from "../domain/errors.ts";
import type { Runtime } from "../runtime.ts";
import { addAlias, findAccountByName } from "../services/accounts/aliases.ts";
import { moveAccount } from "../services/accounts/moves.ts";
import {
  createAccountAsOperator,
  deleteLocalAccount,
  listUsers,
  modifyUser,
} from "../services/moderation/admin_accounts.ts";
import { roleIdByName } from "../services/roles/manage.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";
import { exportAccount, exportKindOf, importAccount } from "./portability.ts";

/** The role an option names; an unknown name is a usage error. */
async function roleIdOf(rt: Runtime, name: string): Promise<string | null> {
  try {
    return await roleIdByName(rt, name);
  } catch (error) {
    if (error instanceof ApiError) {
      throw new UsageError(`${error.message}: give user, moderator, admin, owner or a custom role's name.`);
    }
    throw error;
  }
}

/** Service errors are the operator's mistakes here: print them plainly. */
async function run(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof ApiError) {
      throw new Error(error.status === 404 ? "No such local account." : error.message);
    }
    throw error;
  }
}

/**
 * Moves the local account `name` to `to` in one step when `to` is local too (it gets `name` as its
 * alias first); a remote `to` must list `name` among its aliases already. No 30-day wait.
 */
export async function moveAsOperator(rt: Runtime, name: string, to: string): Promise<void> {
  const source = await findAccountByName(rt, name);
  if (!source || source.domain !== null) throw new Error("No such local account.");
  const target = await findAccountByName(rt, to);
  if (target?.domain === null) await addAlias(rt, target.id, source.uri);
  const moved = await moveAccount(rt, source.id, to, { cooldown: false });
  console.log(
    `Moved @${source.acct} to @${moved.acct}: a job moves its followers here to @${moved.acct}, and other servers are told.`,
  );
}

export const accountsCommand: Command = {
  name: "accounts",
  usage:
    "accounts create NAME --email E [--role owner|admin|moderator|user|ROLE] [--confirmed] [--approve]\n" +
    "  rookery accounts approve NAME\n" +
    "  rookery accounts modify NAME [--role R] [--confirm] [--approve] [--disable|--enable] [--disable-2fa] [--reset-password]\n" +
    "  rookery accounts role NAME ROLE\n" +
    "  rookery accounts delete NAME\n" +
    "  rookery accounts list\n" +
    "  rookery accounts export NAME --type following|lists|blocks|mutes|domain_blocks|bookmarks > FILE.csv\n" +
    "  rookery accounts import NAME --type TYPE FILE.csv [--overwrite]\n" +
    "  rookery accounts move NAME NEW (NEW: a local username, user@domain or an actor URL)",
  summary: "Create, approve, change, delete, list and move local accounts",
  async run(args) {
    const { values, positionals } = parse(args, {
      email: { type: "string" },
      role: { type: "string" },
      confirmed: { type: "boolean" },
      confirm: { type: "boolean" },
      approve: { type: "boolean" },
      disable: { type: "boolean" },
      enable: { type: "boolean" },
      "disable-2fa": { type: "boolean" },
      "reset-password": { type: "boolean" },
      type: { type: "string" },
      overwrite: { type: "boolean" },
    });
    const [action, name] = positionals;
    const needName = () => {
      if (!name) throw new UsageError("Give the account's username.");
      return name;
    };
    switch (action) {
      case "create": {
        if (!values.email) throw new UsageError("--email is required.");
        const username = needName();
        await run(() =>
          withRuntime(async (rt) => {
            const roleId = await roleIdOf(rt, values.role ?? "user");
            // Staff made by the operator need no approval; others wait when sign-ups do.
            const approved = values.approve ?? (roleId !== null || rt.config.registrations.mode !== "approved");
            const { password } = await createAccountAsOperator(rt, {
              username,
              email: values.email!,
              roleId,
              confirmed: values.confirmed ?? false,
              approved,
            });
            console.log(`Created @${username}. Password: ${password}`);
            if (!approved) {
              console.log(
                `It awaits approval, as sign-ups do on this server: approve it with \`rookery accounts approve ${username}\`, or in the web admin at ${rt.config.origin}/admin/accounts.`,
              );
            }
          }),
        );
        return;
      }
      case "approve":
        await run(() => withRuntime((rt) => modifyUser(rt, needName(), { approve: true })));
        console.log(`Approved @${name}.`);
        return;
      case "modify": {
        if (values.disable && values.enable) throw new UsageError("--disable and --enable exclude each other.");
        const changes = {
          confirm: values.confirm,
          approve: values.approve,
          disabled: values.disable ? true : values.enable ? false : undefined,
          disableTwoFactor: values["disable-2fa"],
          resetPassword: values["reset-password"],
        };
        let password: string | null = null;
        await run(() =>
          withRuntime(async (rt) => {
            const roleId = values.role === undefined ? undefined : await roleIdOf(rt, values.role);
            ({ password } = await modifyUser(rt, needName(), { ...changes, roleId }));
          }),
        );
        console.log(`Updated @${name}.${password ? ` New password: ${password}` : ""}`);
        return;
      }
      case "role": {
        const role = positionals[2];
        if (!role) throw new UsageError("Give the role's name (user, moderator, admin, owner or a custom role's).");
        await run(() => withRuntime(async (rt) => modifyUser(rt, needName(), { roleId: await roleIdOf(rt, role) })));
        console.log(`@${name} now has the role ${role}.`);
        return;
      }
      case "delete":
        await run(() => withRuntime((rt) => deleteLocalAccount(rt, needName())));
        console.log(`Deleted @${name}: it is suspended, and a job removes its media files.`);
        return;
      case "list":
        await withRuntime(async (rt) => {
          for (const u of await listUsers(rt)) {
            const state = [
              u.role ?? "user",
              u.confirmed_at ? "confirmed" : "unconfirmed",
              u.approved ? "approved" : "pending",
              u.disabled ? "disabled" : "",
            ].filter(Boolean);
            console.log(
              `@${u.username}\t${u.email}\t${state.join(", ")}${u.sign_up_reason ? `\treason: ${u.sign_up_reason}` : ""}`,
            );
          }
        });
        return;
      case "export": {
        const kind = exportKindOf(values.type);
        await run(() => withRuntime((rt) => exportAccount(rt, needName(), kind)));
        return;
      }
      case "import": {
        const kind = exportKindOf(values.type);
        const file = positionals[2];
        if (!file) throw new UsageError("Give the CSV file to import.");
        await run(() => withRuntime((rt) => importAccount(rt, needName(), kind, file, values.overwrite ?? false)));
        return;
      }
      case "move": {
        const to = positionals[2];
        if (!to) throw new UsageError("Give the account to move to: a local username, user@domain or an actor URL.");
        await run(() => withRuntime((rt) => moveAsOperator(rt, needName(), to)));
        return;
      }
      default:
        throw new UsageError("Unknown accounts command.");
    }
  },
};
