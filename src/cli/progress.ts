// A progress bar on standard error for long operator commands; a line per step when not on a terminal.
export function progressBar(label: string): (done: number, total: number) => void {
  const tty = process.stderr.isTTY;
  let lastPercent = -1;
  return (done, total) => {
    const fraction = total === 0 ? 1 : done / total;
    const percent = Math.floor(fraction * 100);
    if (!tty && percent === lastPercent) return;
    lastPercent = percent;
    const width = 30;
    const filled = Math.round(fraction * width);
    const bar = `${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} (${percent}%)`;
    if (tty) process.stderr.write(`\r${bar}${done >= total ? "\n" : ""}`);
    else process.stderr.write(`${bar}\n`);
  };
}
