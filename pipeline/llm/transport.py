"""HTTP transport injection, so tests drive the real SDK clients without a network.

``use_transport(t)`` sets the transport every SDK client of this package is built on
(``http_client=httpx2.AsyncClient(transport=...)``), as a plain setter or as a context
manager that restores the previous one. ``t`` may be an ``httpx2`` transport (what the
installed openai/anthropic SDKs use) or a classic ``httpx`` transport such as
``httpx.MockTransport(handler)``: the latter is bridged, so a handler receives an
``httpx.Request`` and returns an ``httpx.Response`` as in httpx's documentation, and an
``httpx.TimeoutException`` it raises reaches the SDK as a timeout (which the SDK retries).
With no transport set the SDKs use their own default clients (the network).

A process started by a test (``ledgerforge build`` runs Dagster as a subprocess) cannot
receive an object; there ``LEDGERFORGE_LLM_TRANSPORT=package.module:factory`` names a
function returning the transport, called once per process when nothing was set in code.
"""

from __future__ import annotations

import importlib
import os

import httpx
import httpx2

from pipeline.llm.errors import LLMError

TRANSPORT_ENV = "LEDGERFORGE_LLM_TRANSPORT"
_CURRENT: object | None = None
_FROM_ENV: dict[str, object] = {}


def _env_transport():
    spec = os.environ.get(TRANSPORT_ENV, "").strip()
    if not spec:
        return None
    if spec not in _FROM_ENV:
        module, _, name = spec.partition(":")
        try:
            factory = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError, ValueError) as exc:
            raise LLMError(f"{TRANSPORT_ENV}={spec!r}: cannot load the factory ({exc})") from None
        _FROM_ENV[spec] = factory()
    return _FROM_ENV[spec]


def current_transport():
    """The transport set in code, else the one named by LEDGERFORGE_LLM_TRANSPORT, else None."""
    return _CURRENT if _CURRENT is not None else _env_transport()


class use_transport:  # noqa: N801 - used as a function and as a context manager
    """Set the transport for SDK clients built from now on; restores on context exit."""

    def __init__(self, transport):
        global _CURRENT
        self.previous = _CURRENT
        self.transport = transport
        _CURRENT = transport

    def __enter__(self):
        return self.transport

    def __exit__(self, *exc):
        global _CURRENT
        _CURRENT = self.previous
        return False


def _is_legacy(transport) -> bool:
    return any(
        (getattr(cls, "__module__", "") or "").partition(".")[0] == "httpx"
        for cls in type(transport).__mro__
    )


def _legacy_request(request: httpx2.Request, body: bytes) -> httpx.Request:
    return httpx.Request(
        request.method, str(request.url), headers=list(request.headers.raw), content=body
    )


def _modern_response(response: httpx.Response, request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(
        response.status_code,
        headers=[(k, v) for k, v in response.headers.raw if k.lower() != b"content-encoding"],
        content=response.content,
        request=request,
    )


def _modern_error(exc: httpx.TransportError, request: httpx2.Request) -> Exception:
    if isinstance(exc, httpx.TimeoutException):
        return httpx2.ReadTimeout(str(exc), request=request)
    return httpx2.ConnectError(str(exc), request=request)


class LegacyBridge(httpx2.AsyncBaseTransport, httpx2.BaseTransport):
    """An httpx2 transport that forwards to a classic httpx transport."""

    def __init__(self, inner):
        self.inner = inner

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        legacy = _legacy_request(request, request.read())
        try:
            response = self.inner.handle_request(legacy)
            response.read()
        except httpx.TransportError as exc:
            raise _modern_error(exc, request) from exc
        return _modern_response(response, request)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        legacy = _legacy_request(request, await request.aread())
        try:
            if hasattr(self.inner, "handle_async_request"):
                response = await self.inner.handle_async_request(legacy)
                await response.aread()
            else:
                response = self.inner.handle_request(legacy)
                response.read()
        except httpx.TransportError as exc:
            raise _modern_error(exc, request) from exc
        return _modern_response(response, request)


def _modern(transport):
    return LegacyBridge(transport) if _is_legacy(transport) else transport


def async_http_client(timeout_s: float = 60.0) -> httpx2.AsyncClient | None:
    """An httpx2 async client on the injected transport, or None (SDK default)."""
    chosen = current_transport()
    if chosen is None:
        return None
    return httpx2.AsyncClient(transport=_modern(chosen), timeout=timeout_s)


def sync_http_client(timeout_s: float = 60.0) -> httpx2.Client | None:
    """An httpx2 sync client on the injected transport, or None (SDK default)."""
    chosen = current_transport()
    if chosen is None:
        return None
    return httpx2.Client(transport=_modern(chosen), timeout=timeout_s)
