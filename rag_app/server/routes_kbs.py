"""Knowledge bases and their documents: list, upload (several files at once, a report per file
as on the Library page), delete; each checked against the caller's role (permissions.py): a
reader lists, an editor uploads and deletes, and a knowledge base an upload makes is the
uploader's."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from rag_app.models import IngestReport
from rag_app.server.auth import CallerOf
from rag_app.server.contract import (
    UPLOAD_BODY,
    UPLOAD_RESPONSES,
    Deleted,
    DocumentList,
    FactList,
    FactRow,
    KbList,
    errors,
    ok,
)
from rag_app.server.errors import ApiError, error_body
from rag_app.server.permissions import access_of, require_kb, visible
from rag_app.server.schemas import OnConflict, _plain, report_json
from rag_app.server.state import ServerState

_CONFLICT_CHOICES = ("ask", "replace", "keep_both")
# A knowledge base's name: no path separators, no NUL (the library's own rule).
KB_NAME_PATTERN = r"^[^/\\\x00]*[^/\\\x00\s\x1c-\x1f\x85\ufeff][^/\\\x00]*$"


def kb_router(state: ServerState, auth: Any) -> APIRouter:
    router = APIRouter(prefix="/v1/kbs", dependencies=[Depends(auth)])

    @router.get("", responses={**ok(KbList, "the knowledge bases"), **errors(401)})
    def list_kbs(caller: CallerOf) -> dict[str, Any]:
        """The knowledge bases the caller may see (its role on one: GET .../members)."""
        lib = state.library
        return {
            "data": [
                {"name": kb, "documents": len(lib.documents(kb))} for kb in visible(state, caller)
            ]
        }

    @router.get(
        "/{kb}/documents", responses={**ok(DocumentList, "the documents"), **errors(401, 404)}
    )
    def list_documents(kb: str, caller: CallerOf) -> dict[str, Any]:
        require_kb(state, caller, kb, "reader", "list documents")
        docs = state.library.documents(kb)
        return {
            "kb": kb,
            "data": [{**_plain(d), "type_counts": dict(d.type_counts)} for d in docs],
        }

    @router.get(
        "/{kb}/documents/{doc_id}/facts",
        responses={**ok(FactList, "the document's table cells as facts"), **errors(401, 404)},
    )
    def list_facts(kb: str, doc_id: str, caller: CallerOf) -> dict[str, Any]:
        """Every cell of the document's tables as the library stored it at ingest: whose, which
        row (metric) and column, the period the column names, the value as written and read, its
        unit, scale and power of ten, the table's caption and pages (the Library page's facts)."""
        require_kb(state, caller, kb, "reader", "list facts")
        if doc_id not in {d.doc_id for d in state.library.documents(kb)}:
            raise ApiError(
                404, f"no document '{doc_id}' in knowledge base '{kb}'", "not_found_error", "doc_id"
            )
        facts = state.library.facts(kb, [doc_id])
        keys = FactRow.model_fields
        return {
            "kb": kb,
            "doc_id": doc_id,
            "data": [
                {k: list(f.pages) if k == "pages" else getattr(f, k) for k in keys} for f in facts
            ],
        }

    @router.post("/{kb}/documents", openapi_extra=UPLOAD_BODY, responses=UPLOAD_RESPONSES)
    async def upload(
        caller: CallerOf,
        kb: Annotated[str, Path(min_length=1, max_length=64, pattern=KB_NAME_PATTERN)],
        request: Request,
        on_conflict: Annotated[OnConflict, Query()] = "ask",
        replace: Annotated[bool, Query(description="the CLI's --replace")] = False,
        keep_both: Annotated[bool, Query(description="the CLI's --keep-both")] = False,
    ) -> JSONResponse:
        """Upload files (multipart field ``files``), a report per file; an editor's (a new
        knowledge base becomes the uploader's). The body is read only once an upload slot is
        free (429 otherwise), spooled to disk past 1 MB with the size limit enforced while
        reading, and each file's bytes are read only when it is ingested."""
        check_kb_name(kb)
        require_kb(state, caller, kb, "editor", "upload documents", must_exist=False)
        content_type = request.headers.get("content-type", "")
        if not content_type.startswith("multipart/form-data"):
            raise ApiError(
                415, "upload files as multipart/form-data in the field 'files'", param="files"
            )
        state.take_upload_slot()
        access = access_of(state, caller)
        # Owned before its first file goes in, so that nobody else's upload lands in it meanwhile;
        # forgotten again when nothing went in.
        new = kb not in state.library.knowledge_bases()
        unowned = access.store is None or access.store.owner(kb) is None
        if new:
            access.created(kb, caller.principal)
        try:
            limits = state.settings.server  # files and other fields one upload may carry
            async with request.form(
                max_files=limits.max_upload_files, max_fields=limits.max_upload_fields
            ) as form:
                choice = _on_conflict(form, on_conflict, replace, keep_both)
                uploads = _files_of(form)
                results = await run_in_threadpool(_ingest_each, state, kb, uploads, choice)
        finally:
            state.upload_slots.give_back()
            if new and unowned and kb not in state.library.knowledge_bases():
                access.deleted(kb)
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
        if status != 200:
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

    @router.delete(
        "/{kb}/documents/{doc_id}",
        responses={
            **ok(Deleted, "the document is gone from every index"),
            **errors(401, 403, 404),
        },
    )
    def delete(kb: str, doc_id: str, caller: CallerOf) -> dict[str, Any]:
        require_kb(state, caller, kb, "editor", "delete documents")
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


def _on_conflict(form: Any, query: str, replace: bool, keep_both: bool) -> OnConflict:
    """``on_conflict`` from the query or the form (ask / replace / keep_both), or the CLI's
    flags as query booleans ``replace=true`` / ``keep_both=true``."""
    in_form = form.get("on_conflict")
    if in_form is not None and in_form not in _CONFLICT_CHOICES:
        raise ApiError(
            422, f"on_conflict must be one of {', '.join(_CONFLICT_CHOICES)}", param="on_conflict"
        )
    value = query if query != "ask" else (in_form or "ask")
    if replace:
        value = "replace"
    if keep_both:
        value = "keep_both"
    if value not in _CONFLICT_CHOICES:
        raise ApiError(
            422, f"on_conflict must be one of {', '.join(_CONFLICT_CHOICES)}", param="on_conflict"
        )
    return value  # type: ignore[return-value]


def _files_of(form: Any) -> list[UploadFile]:
    """The form's files; a 422 for no files, a field that is not a file, or an unknown field."""
    unknown = sorted({key for key in form.keys() if key not in ("files", "on_conflict")})
    if unknown:
        raise ApiError(422, f"unknown form field '{unknown[0]}'", param=unknown[0])
    uploads = form.getlist("files")
    if not uploads:
        raise ApiError(422, "no files: send them in the multipart field 'files'", param="files")
    if not all(isinstance(u, UploadFile) for u in uploads):
        raise ApiError(422, "'files' holds a field that is not a file", param="files")
    return uploads


def _ingest_each(
    state: ServerState, kb: str, uploads: list[UploadFile], on_conflict: OnConflict
) -> list[tuple[str, list[IngestReport]]]:
    """One file at a time, as the Library page does: one file's failure is its own report.
    A file is read from its spool only when its turn comes, and only when it fits the
    library's limit, so memory holds one file at a time."""
    limit = state.settings.max_file_bytes
    results = []
    for upload in uploads:
        name = upload.filename or "upload"
        try:
            if upload.size is not None and upload.size > limit:
                reports = [IngestReport(name, "rejected", message=_too_big(upload.size, limit))]
            else:
                upload.file.seek(0)
                data = upload.file.read()
                reports = state.library.ingest_bytes([(name, data)], kb, on_conflict=on_conflict)
                del data
        except Exception as exc:  # noqa: BLE001 - reported per file; the others still go in
            reports = [IngestReport(name=name, status="rejected", message=str(exc))]
        results.append((name, reports))
    return results


def _too_big(size: int, limit: int) -> str:
    return f"{size / 1e6:.1f} MB, over the limit of {limit / 1e6:.0f} MB a file"


def _status(reports: list[IngestReport]) -> int:
    """200 when every file went in (or was already there); 409 when every report is a
    conflict to choose on; 207 (each file its own status) when some file did not go in."""
    bad = [r for r in reports if r.status in ("rejected", "conflict")]
    if not bad:
        return 200
    if len(bad) == len(reports) and all(r.status == "conflict" for r in bad):
        return 409
    return 207
