"""Knowledge bases and their documents: list, upload (several files at once, a report per file
as on the Library page), delete."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from rag_app.models import IngestReport
from rag_app.server.errors import ApiError, error_body
from rag_app.server.schemas import _plain, report_json
from rag_app.server.state import ServerState

_CONFLICT_CHOICES = ("ask", "replace", "keep_both")
# Files one upload request may carry (Starlette's own default is 1000).
_MAX_FILES = 100


def kb_router(state: ServerState, auth: Any) -> APIRouter:
    router = APIRouter(prefix="/v1/kbs", dependencies=[Depends(auth)])

    @router.get("")
    def list_kbs() -> dict[str, Any]:
        lib = state.library
        return {
            "data": [
                {"name": kb, "documents": len(lib.documents(kb))} for kb in lib.knowledge_bases()
            ]
        }

    @router.get("/{kb}/documents")
    def list_documents(kb: str) -> dict[str, Any]:
        state.check_kb(kb)
        docs = state.library.documents(kb)
        return {
            "kb": kb,
            "data": [{**_plain(d), "type_counts": dict(d.type_counts)} for d in docs],
        }

    @router.post("/{kb}/documents")
    async def upload(kb: str, request: Request) -> JSONResponse:
        check_kb_name(kb)
        content_type = request.headers.get("content-type", "")
        if not content_type.startswith("multipart/form-data"):
            raise ApiError(
                415, "upload files as multipart/form-data in the field 'files'", param="files"
            )
        form = await request.form(max_files=_MAX_FILES)
        on_conflict = _on_conflict(request, form)
        uploads = [f for f in form.getlist("files") if isinstance(f, UploadFile)]
        if not uploads:
            raise ApiError(422, "no files: send them in the multipart field 'files'", param="files")
        files = [(u.filename or "upload", await u.read()) for u in uploads]
        await form.close()
        results = await run_in_threadpool(_ingest_each, state, kb, files, on_conflict)
        reports = [r for _, per_file in results for r in per_file]
        for r in reports:
            state.metrics.ingested.labels(kb, r.status).inc()
        body = {
            "kb": kb,
            "files": [
                {"name": name, "reports": [report_json(r) for r in per_file]}
                for name, per_file in results
            ],
        }
        status = _status(reports)
        if status >= 400:
            failed = [r for r in reports if r.status in ("rejected", "conflict")]
            first = failed[0]
            hint = (
                " (send on_conflict=replace or keep_both to choose)"
                if first.status == "conflict"
                else ""
            )
            body.update(
                error_body(
                    f"{first.name}: {first.status}: {first.message}{hint}",
                    "invalid_request_error",
                    "files",
                )
            )
        return JSONResponse(body, status_code=status)

    @router.delete("/{kb}/documents/{doc_id}")
    def delete(kb: str, doc_id: str) -> dict[str, Any]:
        state.check_kb(kb)
        if not state.library.delete_document(kb, doc_id):
            raise ApiError(
                404, f"no document '{doc_id}' in knowledge base '{kb}'", "not_found_error", "doc_id"
            )
        return {"deleted": doc_id, "kb": kb}

    return router


def check_kb_name(kb: str) -> None:
    kb = kb.strip()
    if not kb or len(kb) > 64 or any(ch in kb for ch in "/\\\0"):
        raise ApiError(
            422, "a knowledge base name is 1 to 64 characters, without / or \\", param="kb"
        )


def _on_conflict(request: Request, form: Any) -> str:
    """``on_conflict`` from the query or the form (ask / replace / keep_both), or the CLI's
    flags as booleans: ``replace=true`` / ``keep_both=true``."""
    value = request.query_params.get("on_conflict") or form.get("on_conflict") or "ask"
    for flag in ("replace", "keep_both"):
        raw = request.query_params.get(flag) or form.get(flag)
        if isinstance(raw, str) and raw.lower() in ("1", "true", "yes", "on"):
            value = flag
    value = str(value).replace("-", "_")
    if value not in _CONFLICT_CHOICES:
        raise ApiError(
            422, f"on_conflict must be one of {', '.join(_CONFLICT_CHOICES)}", param="on_conflict"
        )
    return value


def _ingest_each(
    state: ServerState, kb: str, files: list[tuple[str, bytes]], on_conflict: str
) -> list[tuple[str, list[IngestReport]]]:
    """One file at a time, as the Library page does: one file's failure is its own report."""
    results = []
    for name, data in files:
        try:
            reports = state.library.ingest_bytes([(name, data)], kb, on_conflict=on_conflict)  # type: ignore[arg-type]
        except Exception as exc:  # noqa: BLE001 - reported per file; the others still go in
            reports = [IngestReport(name=name, status="rejected", message=str(exc))]
        results.append((name, reports))
    return results


def _status(reports: list[IngestReport]) -> int:
    """200 when every file went in (or was already there); 207 when some did and some did not;
    409 when the only trouble is a conflict to choose on; 422 when nothing went in."""
    bad = [r for r in reports if r.status in ("rejected", "conflict")]
    if not bad:
        return 200
    if len(bad) < len(reports):
        return 207
    return 409 if all(r.status == "conflict" for r in bad) else 422
