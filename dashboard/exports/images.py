"""Figures as PNG or SVG bytes: plotly's static export (kaleido) in the system's Chromium, offline.

Kaleido drives a headless Chrome or Chromium. Here it is pointed at the system's browser
(``BROWSER_PATH``, else ``/usr/bin/chromium``, else the first of ``chromium``, ``chromium-browser``,
``google-chrome`` on the PATH) and given a page that loads nothing from the network: plotly.js from the
plotly package's own copy, and no MathJax (kaleido's default fetches both from CDNs). Several figures are
rendered in one browser session (:func:`figure_images`), which is what makes exporting them all cheap: starting
Chromium and loading plotly.js into its page takes 2.5-8 s on 2 cores, each image then 0.2-0.3 s. Kaleido reloads
the page (and so parses plotly.js again, 0.25 s and more) after every image; here it reloads it only after every
:data:`RELOAD_EVERY` images (:func:`_session_class`), since each image is drawn in a detached element of its own that
plotly.js removes once drawn. The images are the same: PNG byte for byte; SVG the same XML but for the random
hex digits that plotly.js puts in its element ids on every drawing (reloaded or not) and, in some drawings, the
order of an element's attributes.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import shutil
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from metrics import RankscopeError
from metrics.checks import Options, check, refuse, where

__all__ = ["IMAGE_FORMATS", "browser_path", "figure_image", "figure_images", "figure_png", "figure_svg"]

IMAGE_FORMATS = ("png", "svg")
TIMEOUT = 60
RELOAD_EVERY = 32  # images drawn in one page before it is reloaded (kaleido reloads after each)
_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def browser_path() -> str | None:
    """The Chrome/Chromium kaleido will use: ``BROWSER_PATH``, ``/usr/bin/chromium``, or one on the PATH."""
    if os.environ.get("BROWSER_PATH"):
        return os.environ["BROWSER_PATH"]
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    return next((found for name in _BROWSERS if (found := shutil.which(name))), None)


def _page_generator():
    """Kaleido's page with plotly.js from the plotly package and no MathJax: nothing to fetch."""
    import kaleido
    import plotly

    script = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not script.is_file():
        raise RankscopeError(f"plotly's own copy of plotly.js is missing ({script}); reinstall plotly")
    return kaleido.PageGenerator(plotly=script, mathjax=False)


def figure_images(figures: Mapping[str, Any], formats: Sequence[str] = IMAGE_FORMATS, *,
                  width: int | None = None, height: int | None = None, scale: float | None = None) -> dict[str, bytes]:
    """Render plotly figures to image bytes in one browser session.

    Parameters
    ----------
    figures : mapping of str to plotly.graph_objects.Figure
        ``{name: figure}``.
    formats : sequence of {"png", "svg"}, default=("png", "svg")
    width, height : int, optional
        Pixels (default: each figure's layout, else 700 x 500).
    scale : float, optional
        Resolution factor of PNG images (default 1).

    Returns
    -------
    dict
        ``{"<name>.<format>": bytes}``, figures in order, each in every format.

    Raises
    ------
    RankscopeError
        kaleido missing, no Chrome/Chromium found, or the browser failed (the message says how to fix it);
        ValidationError for an unknown format or something that is not a figure.
    """
    formats = list(formats)
    if not formats:
        raise refuse("formats", f"one or more of {', '.join(map(repr, IMAGE_FORMATS))}", formats)
    for format in formats:
        check("format", format, Options(*IMAGE_FORMATS))
    jobs = []
    for name, fig in figures.items():
        if not hasattr(fig, "to_dict") or not hasattr(fig, "layout"):
            raise refuse(where("figures", [name]), "a plotly figure", fig)
        spec = fig.to_dict()
        w = width or fig.layout.width or 700
        h = height or fig.layout.height or 500
        for fmt in formats:
            jobs.append((f"{name}.{fmt}", spec, {"format": fmt, "width": w, "height": h, "scale": scale or 1}))
    if not jobs:
        return {}
    if importlib.util.find_spec("kaleido") is None:
        raise RankscopeError("exporting figures as images needs kaleido: pip install 'rankscope[dashboard]'")
    images = _render([(spec, opts) for _, spec, opts in jobs])
    out = {}
    for (name, _, opts), data in zip(jobs, images):
        if not isinstance(data, (bytes, bytearray)) or not data:
            raise RankscopeError(f"could not export {name}: kaleido returned nothing")
        out[name] = bytes(data)
    return out


def _render(jobs: list[tuple[dict, dict]]) -> list[bytes]:
    """Run kaleido in its own thread (and event loop), so it works under any caller, Streamlit included."""
    from kaleido.errors import ChromeNotFoundError

    path = browser_path()
    options: dict[str, Any] = {"page_generator": _page_generator(), "timeout": TIMEOUT}
    if path:
        options["path"] = path

    async def main() -> list[bytes]:
        async with _session_class()(**options) as k:
            return [await k.calc_fig(spec, opts=opts) for spec, opts in jobs]

    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["images"] = asyncio.run(main())
        except BaseException as err:  # noqa: BLE001 - handed to the calling thread
            result["error"] = err

    thread = threading.Thread(target=target, name="rankscope-kaleido", daemon=True)
    thread.start()
    thread.join()
    err = result.get("error")
    if err is None:
        return result["images"]
    where = f" (browser: {path})" if path else ""
    if isinstance(err, ChromeNotFoundError):
        raise RankscopeError("exporting figures as images needs Chrome or Chromium: install Debian's chromium "
                             f"(apt-get install chromium) or point BROWSER_PATH at one{where}") from None
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    raise RankscopeError(f"could not export the figures: the browser failed{where}: {text}") from err


def _session_class():
    """Kaleido's browser session, reloading its page after every :data:`RELOAD_EVERY` images instead of each.

    Kaleido hands the page back through ``_return_kaleido_tab`` (reload, then back into the ``tabs_ready``
    queue); a kaleido without them gets its own behaviour.
    """
    import kaleido

    if not hasattr(kaleido.Kaleido, "_return_kaleido_tab") or "tabs_ready" not in getattr(
            kaleido.Kaleido, "__annotations__", {}):
        return kaleido.Kaleido

    class _Session(kaleido.Kaleido):
        _drawn = 0

        async def _return_kaleido_tab(self, tab) -> None:
            self._drawn += 1
            if self._drawn % RELOAD_EVERY == 0:
                await super()._return_kaleido_tab(tab)
            else:
                await self.tabs_ready.put(tab)

    return _Session


def figure_image(fig, format: str = "png", *, width: int | None = None, height: int | None = None,
                 scale: float | None = None) -> bytes:
    """One plotly figure as PNG or SVG bytes (see :func:`figure_images`).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    format : {"png", "svg"}, default="png"
    width, height : int, optional
    scale : float, optional
        Resolution factor for PNG (e.g. 2 for print).

    Returns
    -------
    bytes
    """
    check("format", format, Options(*IMAGE_FORMATS))
    return figure_images({"figure": fig}, [format], width=width, height=height, scale=scale)[f"figure.{format}"]


def figure_png(fig, *, width: int | None = None, height: int | None = None, scale: float | None = 2) -> bytes:
    """A plotly figure as PNG bytes (twice the layout resolution by default)."""
    return figure_image(fig, "png", width=width, height=height, scale=scale)


def figure_svg(fig, *, width: int | None = None, height: int | None = None) -> bytes:
    """A plotly figure as SVG bytes."""
    return figure_image(fig, "svg", width=width, height=height)
