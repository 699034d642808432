// The Marker entity, as the map Mastodon answers with: `{ "home": {…}, "notifications": {…} }`.
import type { Marker } from "../services/feeds/markers.ts";

export function renderMarkers(markers: Marker[]) {
  const out: Record<string, { last_read_id: string; version: number; updated_at: string }> = {};
  for (const m of markers) {
    out[m.timeline] = { last_read_id: m.last_read_id, version: m.version, updated_at: m.updated_at.toISOString() };
  }
  return out;
}
