/**
 * The cargo target directory the server binary is run from: `../target`
 * unless PENSIVE_E2E_TARGET_DIR names another (a worktree building with
 * its own CARGO_TARGET_DIR). The binary is `${TARGET}/debug/pensive`; the
 * site stays `../target/site`, where cargo-leptos writes it either way.
 */
export const TARGET = process.env.PENSIVE_E2E_TARGET_DIR ?? '../target';
