// Your tables on this device: the lobby lists those you sit at (running, waiting, finished:
// a way back, or to the replay), and a table's menu lets you leave it or hand your seat to
// a bot. The seats' tokens are already kept here (api.js, `seat.ID`); this adds when each
// table was last opened, to list the newest first.
import { api, store } from "./api.js";
import { h, replace } from "./dom.js";
import { _ } from "./i18n.js";

const KEPT = 12;

export function noteVisit(id) {
  const visits = store.get("visits", {});
  visits[id] = Date.now();
  const newest = Object.entries(visits).sort((a, b) => b[1] - a[1]).slice(0, 50);
  store.set("visits", Object.fromEntries(newest));
}

// [{id, seen}] newest first: every table this device holds a seat at.
export function myTables() {
  const visits = store.get("visits", {});
  const ids = [];
  for (let i = 0; i < localStorage.length; i++) {
    const m = /^minodice\.seat\.([A-Za-z0-9]+)$/.exec(localStorage.key(i) || "");
    if (m) ids.push(m[1]);
  }
  return ids.map((id) => ({ id, seen: visits[id] || 0 })).sort((a, b) => b.seen - a.seen).slice(0, KEPT);
}

function forget(id) {
  store.remove(`seat.${id}`);
  const visits = store.get("visits", {});
  delete visits[id];
  store.set("visits", visits);
}

// The lobby's card "Your tables" (null when this device sits at none); each table's state
// is asked of the server, a table it no longer knows is forgotten here.
export function myTablesCard(link) {
  const tables = myTables();
  if (!tables.length) return null;
  const list = h("ul", { class: "my-tables" });
  const card = h("section", { class: "card mine" }, h("h2", {}, _("Your tables")), list);
  const label = { waiting: _("waiting for players"), playing: _("in play"), finished: _("finished") };
  Promise.all(tables.map(async ({ id }) => {
    try { return await api("GET", `/api/tables/${id}`); } catch (err) {
      if (err.code === "not_found") forget(id);
      return err.code === "not_found" ? null : { table: id, status: "unknown", players: [] };
    }
  })).then((infos) => {
    const items = infos.filter(Boolean).map((t) => {
      const names = t.players.map((p) => p.name).filter(Boolean).join(", ");
      const finished = t.status === "finished";
      return h("li", { "data-table": t.table, "data-status": t.status },
        h("a", { href: finished ? `/replay/${t.table}` : `/t/${t.table}`, onclick: link, class: "button" },
          finished ? _("Replay") : _("Back to the table")),
        " ", h("span", {}, label[t.status] || _("cannot be reached now")),
        names ? h("small", { class: "names" }, " · " + names) : null);
    });
    if (!items.length) card.remove();
    else replace(list, items);
  });
  return card;
}

// The table's "Leave" button: a confirmation, then either just leave (the stand-in plays
// after the grace period; the seat stays yours) or hand the seat to a bot at once.
/** The header's Leave button for table `id`, once this device holds a seat there (at
 * once, or when a seat is taken on the table's page). */
export function addLeaveButton(id, ui) {
  const nav = document.getElementById("nav");
  if (!nav || document.getElementById("leave")) return;
  const leave = leaveButton(id, ui);
  if (leave) nav.insertBefore(leave, nav.querySelector(".menu")); // on the header's one row
}

export function leaveButton(id, ui) {
  const seat = store.get(`seat.${id}`);
  if (!seat) return null;
  const dialog = h("dialog", { class: "card leave", "aria-labelledby": "leave-title" },
    h("h2", { id: "leave-title" }, _("Leave this table?")),
    h("p", {}, _("Your seat stays yours: open the table again from the lobby to play on. While you are away a bot plays for you.")),
    h("div", { class: "row" },
      h("button", { type: "button", id: "hand-over", class: "primary", onclick: async () => {
        try {
          await api("POST", `/api/tables/${id}/away`, { token: seat.token });
          dialog.close();
          ui.go("/");
        } catch (err) { ui.toast(err.message); }
      } }, _("Let a bot play for me now")),
      h("button", { type: "button", id: "leave-now", onclick: () => { dialog.close(); ui.go("/"); } }, _("Just leave")),
      h("button", { type: "button", id: "stay", onclick: () => dialog.close() }, _("Stay"))));
  dialog.addEventListener("close", () => dialog.remove());
  return h("button", { type: "button", id: "leave", onclick: () => {
    document.body.appendChild(dialog);
    dialog.showModal();
  } }, _("Leave"));
}
