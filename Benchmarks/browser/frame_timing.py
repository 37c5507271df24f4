"""What the browser benches time in a page from outside it, so the shipped pages carry no code for them.

`install` puts an observer into every document the browser opens next (DevTools' Page.addScriptToEvaluateOnNewDocument,
before the page's own scripts): it times each animation-frame callback with performance.now() (the pages redraw their
maps and apply stream messages in those callbacks, once per frame) and counts the WebSocket messages the page receives.
"""

OBSERVER = """
(() => {
    const frames = [];
    window.__benchFrames = frames;
    window.__benchMessages = 0;
    const request = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (callback) => request((time) => {
        const started = performance.now();
        try {
            callback(time);
        } finally {
            frames.push(performance.now() - started);
            if (frames.length > 20000) frames.splice(0, 5000);
        }
    });
    const Socket = window.WebSocket;
    window.WebSocket = class extends Socket {
        constructor(...args) {
            super(...args);
            this.addEventListener('message', () => { window.__benchMessages += 1; });
        }
    };
})();
"""


def install(driver):
    """Before the page is opened: every document from now on is observed."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": OBSERVER})


def reset(driver):
    """Start measuring now: what came before (the page's start) is forgotten."""
    driver.execute_script("if (window.__benchFrames) window.__benchFrames.length = 0; window.__benchMessages = 0;")


def frames(driver):
    """Milliseconds each animation-frame callback took since the last reset, or None if nothing was observed."""
    return driver.execute_script("return window.__benchFrames ? Array.from(window.__benchFrames) : null")


def messages(driver):
    """WebSocket messages the page received since the last reset."""
    return driver.execute_script("return window.__benchMessages || 0")
