// When a page became interactive, noted in window.__hydratedAt (ms since
// navigation start). Init scripts: each runs in the page before the app.

// Pensive marks <body data-hydrated="true"> from an Effect, which runs right
// after hydration: a MutationObserver notes the moment.
export const watchPensive = () => {
  const note = () => {
    if (document.body?.dataset.hydrated === 'true' && !(window as any).__hydratedAt) {
      (window as any).__hydratedAt = performance.now();
    }
    // The renderer's lazily loaded chunk has arrived (src/app/lazy_renderer/mod.rs).
    if (document.body?.dataset.renderer === 'ready' && !(window as any).__rendererAt) {
      (window as any).__rendererAt = performance.now();
    }
  };
  new MutationObserver(note).observe(document, {
    attributes: true,
    subtree: true,
    attributeFilter: ['data-hydrated', 'data-renderer'],
  });
};

// The bare app has no marker: its counter button is clicked on every animation
// frame, and the first change of its text (Leptos updates it a microtask after
// the click that its handler saw) is the moment it became interactive (±1 frame).
export const watchBare = () => {
  let watching = false;
  const poll = () => {
    if ((window as any).__hydratedAt) return;
    const button = document.getElementById('counter');
    if (button) {
      if (!watching) {
        watching = true;
        new MutationObserver(() => {
          if (!(window as any).__hydratedAt) (window as any).__hydratedAt = performance.now();
        }).observe(button, { characterData: true, childList: true, subtree: true });
      }
      button.click();
    }
    requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
};
