// A node process that loads the extension through pi's loader, starts the
// session, provisions its sandbox, says "READY <name>" and waits to be
// killed (lifecycle.test.mjs kills it with SIGKILL).
import { loadExtension } from "./harness.mjs";

const pi = await loadExtension(process.cwd());
await pi.start();
const r = await pi.call("docker_ps", {});
process.stdout.write(`READY ${r.result.details.sandbox}\n`);
setInterval(() => {}, 60000);
