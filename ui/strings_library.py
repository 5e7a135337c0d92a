"""The Library page's labels (views/library.py, ui/ingestion.py, ui/sample_progress.py), and
the Chinese wordings of why a file was not imported (``IngestError.why``)."""

# key -> (Chinese, English). Placeholders use str.format names.
LIBRARY_TEXTS: dict[str, tuple[str, str]] = {
    # library page
    "library_title": ("文档库", "Library"),
    "library_caption": (
        "管理知识库与文档：上传 MinerU 解析结果（content_list .json、.zip）、Markdown 或表格。",
        "Manage knowledge bases and documents: upload MinerU outputs (content_list .json, "
        ".zip), Markdown or sheets.",
    ),
    "kb_section": ("知识库", "Knowledge bases"),
    "kb_current": ("当前知识库", "Current knowledge base"),
    "kb_new": ("新建知识库", "New knowledge base"),
    "kb_new_placeholder": ("名称，例如：半导体", "Name, e.g. semiconductors"),
    "kb_create": ("创建", "Create"),
    "kb_created": ("已创建知识库「{kb}」", "Created knowledge base “{kb}”"),
    "kb_exists": ("知识库「{kb}」已存在", "Knowledge base “{kb}” already exists"),
    "kb_delete": ("删除知识库", "Delete knowledge base"),
    "kb_delete_confirm": (
        "确定删除知识库「{kb}」及其全部 {n} 个文档？此操作不可撤销。",
        "Delete knowledge base “{kb}” and all its {n} documents? This cannot be undone.",
    ),
    "kb_deleted": ("已删除知识库「{kb}」", "Deleted knowledge base “{kb}”"),
    "confirm": ("确认删除", "Delete"),
    "cancel": ("取消", "Cancel"),
    "upload_section": ("上传文档", "Upload documents"),
    "uploader": ("选择文件（可多选）", "Choose files (several at once)"),
    "uploader_help": (
        "支持 MinerU content_list .json、MinerU 下载的 .zip（含图片）、.md，以及 .xlsx/.csv/.json 问答表。",
        "MinerU content_list .json, a MinerU .zip download (with images), .md, and "
        ".xlsx/.csv/.json Q&A sheets.",
    ),
    "uploader_limits": (
        "大小上限：.zip 每个 {zip}，其他文件每个 {file}。",
        "Size limits: {zip} per .zip file, {file} per other file.",
    ),
    "ingest_button": ("导入 {n} 个文件到「{kb}」", "Import {n} files into “{kb}”"),
    "ingest_button_one": ("导入 1 个文件到「{kb}」", "Import 1 file into “{kb}”"),
    "ingest_stage_chunk": ("解析切分", "parsing"),
    "ingest_stage_embed": ("向量化 {done}/{total}", "embedding {done}/{total}"),
    "ingest_stage_index": ("写入索引", "indexing"),
    "ingest_stage_done": ("完成", "done"),
    "ingest_waiting": ("等待中", "waiting"),
    "ingest_outcome_ingested": ("✅ 已导入", "✅ imported"),
    "ingest_outcome_duplicate": ("ℹ️ 重复，未导入", "ℹ️ duplicate, skipped"),
    "ingest_outcome_rejected": ("❌ 未导入", "❌ not imported"),
    "ingest_outcome_conflict": ("⚠️ 需要选择", "⚠️ needs a choice"),
    "conflict": (
        "⚠️ {name}：库中已有同名文档「{doc}」，内容不同。未写入任何内容，请选择：",
        "⚠️ {name}: the library already holds a different document “{doc}” under this name. "
        "Nothing was written; choose:",
    ),
    "conflict_replace": ("替换「{doc}」", "Replace “{doc}”"),
    "conflict_keep_both": ("两者都保留", "Keep both"),
    "conflict_gone": ("请重新上传该文件后再选择。", "Upload the file again to choose."),
    "kept_beside": ("另存为「{doc}」", "kept as “{doc}”"),
    "changed": ("变化：{what}", "what changed: {what}"),
    "duplicate_pair": (
        "ℹ️ {name}：这是 MinerU 写在内容列表旁的 Markdown；保留内容列表（含页码），未替换",
        "ℹ️ {name}: the markdown MinerU writes beside the content list; the content list (with "
        "pages) is kept, nothing replaced",
    ),
    "ingest_results": ("导入结果", "Import results"),
    "ingested": (
        "✅ {name}：已导入，{n} 个片段（{counts}）",
        "✅ {name}: imported, {n} chunks ({counts})",
    ),
    "replaced": ("替换了旧版本", "replaced the earlier version"),
    "duplicate": (
        "ℹ️ {name}：内容与已有文档「{doc}」相同，未重复导入",
        "ℹ️ {name}: same content as document “{doc}” already in the library; skipped",
    ),
    "rejected": ("❌ {name}：未导入，{reason}", "❌ {name}: not imported: {reason}"),
    "ingest_warning": ("⚠️ {name}：{warning}", "⚠️ {name}: {warning}"),
    "ingest_error": ("导入出错：{error}", "Import failed: {error}"),
    "docs_section": ("文档（{n}）", "Documents ({n})"),
    "no_docs": ("这个知识库还没有文档。", "This knowledge base has no documents yet."),
    "col_name": ("名称", "Name"),
    "col_format": ("格式", "Format"),
    "format_content_list": ("MinerU 内容列表", "MinerU content list"),
    "format_zip": ("MinerU 压缩包", "MinerU zip"),
    "format_markdown": ("Markdown", "Markdown"),
    "format_sheet": ("问答表", "Q&A sheet"),
    "col_chunks": ("片段", "Chunks"),
    "col_pages": ("页数", "Pages"),
    "col_size": ("大小", "Size"),
    "col_date": ("导入时间", "Imported"),
    "preview_section": ("预览与删除", "Preview and delete"),
    "preview_doc": ("选择文档", "Document"),
    "preview_types": ("类型", "Types"),
    "preview_page": ("页码（每页 {n} 条）", "Page ({n} per page)"),
    "preview_count": ("共 {n} 个片段", "{n} chunks"),
    "preview_table_part": ("长表格的第 {i} 段（共 {n} 段）", "part {i} of {n} of a long table"),
    "preview_chunk_help": (
        "片段编号（供开发者排查）：`{id}`",
        "Chunk id (for developers): `{id}`",
    ),
    "doc_delete": ("删除该文档", "Delete this document"),
    "doc_delete_confirm": (
        "确定删除文档「{name}」？其片段、向量与图片都会移除。",
        "Delete document “{name}”? Its chunks, vectors and images are removed.",
    ),
    "doc_deleted": ("已删除文档「{name}」", "Deleted document “{name}”"),
    # each document's profile (rag_app/index/profile.py), under the document table
    "profile_section": ("文档概况", "What each document holds"),
    "profile_line": (
        "{subject} · {entities} 个实体 · {metrics} 个指标 · 期间 {periods} · {tables} 张表 · {figures} 张图",
        "{subject} · entities {entities} · metrics {metrics} · periods {periods} · "
        "tables {tables} · figures {figures}",
    ),
    "profile_no_subject": ("（无主题）", "(no subject)"),
    "profile_none": ("无", "none"),
    "profile_entities": ("实体", "Entities"),
    "profile_metrics": ("指标", "Metrics"),
    "profile_periods": ("期间", "Periods"),
    "profile_exhibits": ("表格与图片", "Tables and figures"),
    "profile_tickers": ("代码 {tickers}", "ticker {tickers}"),
    "profile_aliases": ("又名 {aliases}", "also {aliases}"),
    "profile_page": ("第 {n} 页", "page {n}"),
    "series_section": ("指标序列", "A metric over time"),
    "series_pick": (
        "选择一个指标：各报告表格中的历年数值",
        "Pick a metric: its values over the years in every report's tables",
    ),
    "series_none": (
        "表格中这个指标的数值不足 3 个",
        "The tables give fewer than 3 values of this metric",
    ),
}


# IngestError.why key -> its Chinese wording; English is the core's own message (less the
# file's name, which the result line gives), so a key without a wording here falls back to it.
INGEST_REASONS_ZH: dict[str, str] = {
    "empty_file": "文件是空的",
    "not_text": "不是 UTF-8 或 GB18030（也不是 UTF-16/32）编码的文本文件",
    "bad_json": "不是有效的 JSON（第 {line} 行第 {column} 列：{problem}）",
    "json_too_deep": "JSON 嵌套过深（超过约一千层）；内容列表应是由扁平条目组成的列表",
    "json_number_too_long": "不是有效的 JSON（有超过 4300 位的数字）",
    "too_big": "{size} MB，超过每个文件 {limit} MB 的上限；请拆分文档或提高上限",
    "unsupported_type": "不支持的文件类型；支持 {types}",
    "markdown_empty": "Markdown 中没有内容",
    "workbook_expands": "工作簿解压后 {size} MB，超过问答表 {limit} MB 的上限",
    "workbook_rows": "共 {rows} 行，超过问答表 {limit} 行的上限（每行是一个要向量化的片段）；请拆分工作簿",
    "not_zip": "不是有效的 zip 压缩包",
    "zip_too_many_files": "压缩包内有 {n} 个文件，超过 {limit} 个的上限",
    "zip_expands": "压缩包解压后超过 {limit} MB",
    "zip_no_source": "压缩包中没有 content_list.json 或 .md 文件",
    "zip_no_source_nested": "压缩包中没有 content_list.json 或 .md 文件（不会打开压缩包里的压缩包）",
    "zip_encrypted": "压缩包已加密（{member}）；请上传未加密的 zip",
    "zip_unreadable": "无法从压缩包读取 {member}（{problem}）",
    "zip_member_too_big": "{member} 解压后 {size} MB，超过每个文件 {limit} MB 的上限",
    "zip_unsafe_path": "压缩包中有不安全的路径 {member}（绝对路径或指向文件夹之外），未导入",
    "zip_symlink": "压缩包中有符号链接 {member}",
    "zip_member_twice": "{member} 在压缩包中出现两次，无法判断应使用哪一份",
    "content_list_not_list": "内容列表应是 JSON 条目列表，实际是 {kind}",
    "content_list_empty": "内容列表没有条目",
    "malformed_items": "{n} 个条目格式有误：{details}",
    "no_content_items": "没有内容条目（只有页眉页脚或空条目）",
    "csv_not_text": "不是 UTF-8 或 GB18030 编码的 CSV 文件",
    "sheet_unreadable": "无法读取表格（{problem}）",
    "sheet_missing_columns": "工作表「{sheet}」缺少列 {missing}（必需 {required}；可选 tags、quality_grade）",
    "no_valid_rows": "没有有效的问答行：{details}",
    "too_many_chunks": "共 {chunks} 个片段，超过每个文档 {limit} 个的上限；请拆分文档或提高上限",
    "too_many_chunks_estimated": "约 {chunks} 个片段，超过每个文档 {limit} 个的上限；请拆分文档或提高上限",
}

# json's own words for what is wrong (the ``problem`` of ``bad_json``), in Chinese.
JSON_PROBLEMS_ZH: dict[str, str] = {
    "Expecting value": "缺少值",
    "Expecting ',' delimiter": "缺少逗号",
    "Expecting ':' delimiter": "缺少冒号",
    "Expecting property name enclosed in double quotes": "键名应以双引号括起",
    "Unterminated string starting at": "字符串未结束",
    "Invalid control character at": "字符串中有控制字符（如未转义的换行）",
    "Invalid \\escape": "无效的转义符",
    "Invalid \\uXXXX escape": "无效的 \\uXXXX 转义",
    "Extra data": "JSON 之后还有多余内容",
}
