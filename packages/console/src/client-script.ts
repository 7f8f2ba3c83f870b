/**
 * The console's own script, served from the app (no inline script anywhere): TTL countdowns that
 * tick every second and copy buttons. Both only enhance what the server already rendered.
 */
export const clientScript = `
(() => {
  const two = (n) => String(n).padStart(2, '0');
  const left = (ms) => {
    if (ms <= 0) return 'expired';
    const s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    return h > 0 ? h + 'h ' + two(m) + 'm' : m > 0 ? m + 'm ' + two(s % 60) + 's' : (s % 60) + 's';
  };
  const tick = () => {
    for (const el of document.querySelectorAll('time[data-countdown]')) {
      el.textContent = left(Date.parse(el.dateTime) - Date.now());
    }
    for (const button of document.querySelectorAll('button[data-copy][hidden]')) button.hidden = false;
  };
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-copy]');
    const source = button && document.getElementById(button.dataset.copy);
    if (!source) return;
    navigator.clipboard.writeText(source.textContent.trim()).then(() => {
      button.textContent = 'Copied';
      setTimeout(() => { button.textContent = 'Copy'; }, 1500);
    });
  });
  document.addEventListener('htmx:after:swap', tick);
  setInterval(tick, 1000);
  tick();
})();
`;
