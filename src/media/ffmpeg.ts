// ffmpeg and ffprobe for video, audio and animated GIFs: FFMPEG_PATH/FFPROBE_PATH, else the system's
// on PATH, else the static binaries of the optional npm packages. Without any, video and audio are
// refused with a clear message and images still work.
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";
import type { Config } from "../config.ts";
import { limiter } from "./limiter.ts";

export interface Ffmpeg {
  ffmpeg: string;
  ffprobe: string;
  /** Where they came from, for the start-up line. */
  source: "configured" | "system" | "npm package";
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && executable(join(dir, name))) return join(dir, name);
  }
  return null;
}

function fromPackage(name: string): string | null {
  try {
    const path = (createRequire(import.meta.url)(name) as { path: string }).path;
    return executable(path) ? path : null;
  } catch {
    return null;
  }
}

let found: { key: string; value: Ffmpeg | null } | null = null;

export function findFfmpeg(config: Config): Ffmpeg | null {
  const key = `${config.media.ffmpegPath}|${config.media.ffprobePath}`;
  if (found?.key === key) return found.value;
  let value: Ffmpeg | null = null;
  if (config.media.ffmpegPath) {
    const ffprobe = config.media.ffprobePath ?? join(config.media.ffmpegPath, "..", "ffprobe");
    if (executable(config.media.ffmpegPath) && executable(ffprobe)) {
      value = { ffmpeg: config.media.ffmpegPath, ffprobe, source: "configured" };
    }
  } else {
    const system = { ffmpeg: onPath("ffmpeg"), ffprobe: config.media.ffprobePath ?? onPath("ffprobe") };
    const bundled = {
      ffmpeg: fromPackage("@ffmpeg-installer/ffmpeg"),
      ffprobe: fromPackage("@ffprobe-installer/ffprobe"),
    };
    if (system.ffmpeg && system.ffprobe) value = { ffmpeg: system.ffmpeg, ffprobe: system.ffprobe, source: "system" };
    else if (bundled.ffmpeg && bundled.ffprobe) {
      value = { ffmpeg: bundled.ffmpeg, ffprobe: bundled.ffprobe, source: "npm package" };
    }
  }
  found = { key, value };
  return value;
}

export function describeFfmpeg(config: Config): string {
  const f = findFfmpeg(config);
  return f ? `${f.ffmpeg} (${f.source})` : "none: video and audio uploads are refused";
}

function run(file: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolveRun, reject) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file.split("/").pop()} failed: ${String(stderr).trim().split("\n").pop()}`));
      else resolveRun(stdout);
    });
  });
}

export interface ProbeStream {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  nb_frames?: string;
}

export interface Probe {
  format: { format_name: string; duration?: string; bit_rate?: string };
  streams: ProbeStream[];
}

/** What ffprobe reads from a file; null when it is no media file ffmpeg knows. */
export async function probe(f: Ffmpeg, path: string): Promise<Probe | null> {
  try {
    const out = await run(
      f.ffprobe,
      ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path],
      30_000,
    );
    const parsed = JSON.parse(out) as Probe;
    return parsed.format && Array.isArray(parsed.streams) && parsed.streams.length > 0 ? parsed : null;
  } catch {
    return null;
  }
}

export function transcode(f: Ffmpeg, args: string[]): Promise<string> {
  return run(f.ffmpeg, ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", ...args], 15 * 60_000);
}

const transcodeSlots = new Map<number, ReturnType<typeof limiter>>();

/** Runs `work` when fewer than `limit` transcodes run in this thread. */
export function withTranscodeSlot<T>(limit: number, work: () => Promise<T>): Promise<T> {
  let slots = transcodeSlots.get(limit);
  if (!slots) {
    slots = limiter(limit);
    transcodeSlots.set(limit, slots);
  }
  return slots(work);
}
