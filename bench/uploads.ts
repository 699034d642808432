// Uploads for the benchmarks (bench/media.ts, bench/soak.ts): a photo-like JPEG made once, its
// multipart body, and an upload to POST /api/v2/media timed to its answer and to its processing.
import { Agent, request } from "node:http";
import sharp from "sharp";

/** A photo-like JPEG of about 4 MB: 4000×3000 (BENCH_WIDTH×BENCH_HEIGHT) with fine grain, which compresses like detail. */
export async function photo(
  width = Number(process.env.BENCH_WIDTH ?? 4000),
  height = Number(process.env.BENCH_HEIGHT ?? 3000),
): Promise<{ jpeg: Buffer; width: number; height: number }> {
  const sigma = Number(process.env.BENCH_GRAIN ?? 18);
  const raw = await sharp({
    create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma } },
  })
    .raw()
    .toBuffer();
  const jpeg = await sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: Number(process.env.BENCH_QUALITY ?? 85) })
    .toBuffer();
  return { jpeg, width, height };
}

/**
 * The multipart body of an upload of `jpeg`, made once and sent as it is every time, through
 * node:http: building a FormData and sending it with fetch cost the benchmark 25–70 ms of CPU per
 * upload, taken from the cores the server runs on; this costs it 3–5 ms.
 */
export function multipart(jpeg: Buffer): { body: Buffer; contentType: string } {
  const boundary = "rookery-bench-boundary";
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), jpeg, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

const agent = new Agent({ keepAlive: true });

/** One POST of `form` through node:http: its status and body. */
export function send(
  url: string,
  method: string,
  token: string,
  form?: ReturnType<typeof multipart>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
    if (form) Object.assign(headers, { "content-type": form.contentType, "content-length": form.body.byteLength });
    const req = request(url, { method, agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(form?.body);
  });
}

/** An upload: ms until it was answered, and until it was processed (the same when answered with 200). */
export async function upload(
  base: string,
  token: string,
  form: ReturnType<typeof multipart>,
): Promise<{ answered: number; processed: number }> {
  const started = performance.now();
  const { status, text } = await send(`${base}/api/v2/media`, "POST", token, form);
  const answered = performance.now() - started;
  const body = JSON.parse(text) as { id: string; url: string | null };
  if (status === 200 && body.url) return { answered, processed: answered };
  if (status !== 202) throw new Error(`upload: ${status} ${text}`);
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const polled = await send(`${base}/api/v1/media/${body.id}`, "GET", token);
    if (polled.status === 200) return { answered, processed: performance.now() - started };
    if (polled.status !== 206) throw new Error(`processing: ${polled.status} ${polled.text}`);
  }
}
