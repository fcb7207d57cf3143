"""Arrays as the browser receives them, decoded from a page's protobuf elements."""

from __future__ import annotations

import numpy as np


def array(value) -> np.ndarray:
    """A chart's array as the browser reads it: a list, or plotly's typed array (``{"dtype", "bdata", "shape"}``)."""
    import base64

    if isinstance(value, dict):
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        return flat.reshape([int(n) for n in str(value.get("shape", flat.size)).split(",")])
    return np.asarray(value, dtype=float)
