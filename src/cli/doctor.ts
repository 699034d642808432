// `rookery doctor [--mail-to ADDRESS]`: see src/services/operations/doctor.ts. Exits non-zero when
// any check fails, so that it can gate a deployment.
import { ConfigError, loadConfig, loadDotEnv } from "../config.ts";
import { configureLogging } from "../log.ts";
import { diagnose } from "../services/operations/doctor.ts";
import { type Command, parse } from "./command.ts";

const MARK = { true: "ok  ", false: "FAIL", null: "-   " } as const;

export const doctorCommand: Command = {
  name: "doctor",
  usage: "doctor [--mail-to ADDRESS]",
  summary: "Check the configuration, database, Redis, storage, mail and the server's own address",
  async run(args) {
    const { values } = parse(args, { "mail-to": { type: "string" } });
    loadDotEnv();
    let config: ReturnType<typeof loadConfig>;
    try {
      config = loadConfig();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.log(`${MARK.false} configuration: ${error.message}`);
      throw new Error("1 check failed.");
    }
    // The verdicts say what went wrong; the log would say it again.
    await configureLogging("silent");
    let failed = 0;
    for await (const verdict of diagnose(config, { mailTo: values["mail-to"] })) {
      console.log(`${MARK[`${verdict.ok}`]} ${verdict.name}: ${verdict.detail}`);
      if (verdict.ok === false) failed++;
    }
    if (failed > 0) throw new Error(`${failed} check(s) failed.`);
  },
};
