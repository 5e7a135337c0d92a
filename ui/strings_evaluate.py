"""The Evaluate page's labels (views/evaluate.py, ui/eval_sets.py, ui/eval_runs.py,
ui/eval_compare.py): question sets, runs, their metrics and two runs compared."""

# key -> (Chinese, English). Placeholders use str.format names.
EVALUATE_TEXTS: dict[str, tuple[str, str]] = {
    "nav_evaluate": ("评测", "Evaluate"),
    "eval_title": ("评测", "Evaluate"),
    "eval_caption": (
        "用一组问题检验知识库：上传问题集，选择检索模式、提示词模式与 top-k 运行，查看指标与每道题的检索和回答，比较两次运行。",
        "Test a knowledge base with a set of questions: upload a set, run it with a retrieval "
        "mode, prompt mode and top-k, read the metrics and each question's hits and answer, "
        "and compare two runs.",
    ),
    "eval_unavailable": (
        "评测记录无法打开（数据目录不可写？），评测不可用。",
        "The evaluation store cannot be opened (is the data dir writable?); evaluation is off.",
    ),
    "eval_tab_runs": ("问题集与运行", "Sets and runs"),
    "eval_tab_compare": ("比较两次运行", "Compare two runs"),
    # question sets
    "eval_sets": ("问题集", "Question set"),
    "eval_set_pick": ("问题集", "Question set"),
    "eval_set_none": ("（尚无问题集）", "(no set yet)"),
    "eval_set_label": ("#{id} {name}（{n} 题）", "#{id} {name} ({n} questions)"),
    "eval_set_add": ("添加问题集", "Add a question set"),
    "eval_set_upload": (
        "上传问题集（jsonl、json、csv 或 xlsx）",
        "Upload a question set (jsonl, json, csv or xlsx)",
    ),
    "eval_set_format": (
        "每行一个问题。列：question（问题），answer（预期答案，多个部分用 | 分隔），可选 document（文档）、"
        "page（页码，从 1 起）或 item（content list 条目号）、history（此前的对话，JSON 或每行一个问题）、"
        "answerable（填 false 表示库中无答案，应拒答）。",
        "One question per row. Columns: question, answer (the expected answer; parts that must "
        "all appear separated by |), and optionally document, page (from 1) or item (a content "
        "list index), history (the conversation before it: JSON, or one earlier question per "
        "line) and answerable (false: the library holds no answer and it should be declined).",
    ),
    "eval_set_sample": ("使用示例问题集（20 题）", "Use the sample set (20 questions)"),
    "eval_set_feedback": ("由已评价的回答生成（{n} 条）", "From rated answers ({n})"),
    "eval_set_feedback_help": (
        "问答页里标记 👍 / 👎 的回答：👍 的回答作为预期答案，👎 的备注作为预期答案。",
        "Answers marked 👍 / 👎 on the Ask page: a 👍's answer is the expected one, a 👎's "
        "note says what it should have been.",
    ),
    "eval_set_feedback_name": ("反馈问题集 {time}", "Rated answers {time}"),
    "eval_set_added": ("已添加问题集 #{id}：{n} 题。", "Added question set #{id}: {n} questions."),
    "eval_set_bad": ("无法读取 {name}：{why}", "Could not read {name}: {why}"),
    "eval_set_unknown_docs": (
        "问题集中有 {n} 个文档不在知识库「{kb}」中，这些题的出处无法命中：{docs}",
        "{n} documents the set names are not in knowledge base '{kb}'; their questions' "
        "evidence cannot be found: {docs}",
    ),
    "eval_col_id": ("编号", "ID"),
    "eval_col_question": ("问题", "Question"),
    "eval_col_expected": ("预期答案", "Expected"),
    "eval_col_document": ("文档", "Document"),
    "eval_col_where": ("出处", "Where"),
    "eval_col_history": ("对话轮数", "Earlier turns"),
    "eval_col_answerable": ("可回答", "Answerable"),
    "eval_where_pages": ("第 {pages} 页", "p. {pages}"),
    "eval_where_items": ("条目 {items}", "items {items}"),
    # a run's settings
    "eval_run_settings": ("运行设置", "Run settings"),
    "eval_mode": ("检索模式", "Retrieval mode"),
    "eval_top_k": ("检索条数 top-k", "Hits (top-k)"),
    "eval_scope": ("检索范围", "Search"),
    "eval_scope_kb": ("整个知识库", "Whole knowledge base"),
    "eval_scope_doc": ("仅该题的文档", "The row's document only"),
    "eval_answerer": ("回答方式", "Answerer"),
    "eval_answerer_offline": ("离线抽取", "Offline extractive"),
    "eval_answerer_model": ("大模型 {model}", "Model {model}"),
    "eval_start": ("开始评测", "Start run"),
    "eval_start_both": ("智能与混合各跑一次", "Run smart and hybrid"),
    "eval_started": ("已开始运行 #{id}。", "Run #{id} started."),
    "eval_no_set": ("先添加或选择一个问题集。", "Add or pick a question set first."),
    # runs
    "eval_runs": ("运行记录", "Runs"),
    "eval_runs_empty": ("这个知识库还没有评测运行。", "No runs on this knowledge base yet."),
    "eval_run_label": ("#{id} · {set} · {mode} · {status}", "#{id} · {set} · {mode} · {status}"),
    "eval_status_queued": ("排队中", "queued"),
    "eval_status_running": ("运行中", "running"),
    "eval_status_done": ("已完成", "done"),
    "eval_status_cancelled": ("已取消", "cancelled"),
    "eval_status_failed": ("失败", "failed"),
    "eval_status_interrupted": ("已中断", "interrupted"),
    "eval_progress": ("运行 #{id}：{done}/{total} 题", "Run #{id}: {done}/{total} questions"),
    "eval_cancel": ("取消", "Cancel"),
    "eval_resume": ("继续", "Resume"),
    "eval_delete": ("删除", "Delete"),
    "eval_resume_model": (
        "这次运行用大模型 {model} 回答；在设置页配置它之后才能继续。",
        "This run answers with the model {model}; set it on the Settings page to resume.",
    ),
    "eval_cancelling": (
        "将在当前这道题答完后停止。",
        "It stops once the question at hand is answered.",
    ),
    "eval_interrupted_help": (
        "运行所在的进程已停止（例如重启）；「继续」从上次答完的题接着运行。",
        "The process running it stopped (a restart, say); Resume goes on from the last "
        "question answered.",
    ),
    "eval_failed": ("运行失败：{error}", "The run failed: {error}"),
    "eval_col_run": ("运行", "Run"),
    "eval_col_set": ("问题集", "Set"),
    "eval_col_status": ("状态", "Status"),
    "eval_col_progress": ("进度", "Progress"),
    "eval_col_settings": ("设置", "Settings"),
    "eval_col_created": ("开始于", "Started"),
    "eval_open_run": ("打开一次运行", "Open a run"),
    "eval_export_csv": ("导出 CSV", "Export CSV"),
    "eval_export_json": ("导出 JSON", "Export JSON"),
    # metrics
    "eval_metric_passed": ("通过率", "Passed"),
    "eval_metric_recall_at_1": ("命中@1", "Recall@1"),
    "eval_metric_recall_at_3": ("命中@3", "Recall@3"),
    "eval_metric_recall_at_k": ("命中@k", "Recall@k"),
    "eval_metric_mrr": ("MRR", "MRR"),
    "eval_metric_answer_holds": ("回答含预期答案", "Answer holds expected"),
    "eval_metric_em": ("EM", "EM"),
    "eval_metric_f1": ("F1", "F1"),
    "eval_metric_declined_unanswerable": ("无答案题的拒答率", "Unanswerable declined"),
    "eval_metric_answered_answerable": ("有答案题的作答率", "Answerable answered"),
    "eval_metric_routing_right": ("路由正确率", "Routing right"),
    "eval_metric_latency_ms_p50": ("耗时 p50（毫秒）", "Latency p50 (ms)"),
    "eval_metric_latency_ms_p95": ("耗时 p95（毫秒）", "Latency p95 (ms)"),
    "eval_metric_n": ("题数", "Questions"),
    "eval_metric_n_errors": ("出错", "Errors"),
    "eval_metric_n_gold": ("有出处的题", "With evidence"),
    "eval_metric_n_expected": ("有预期答案的题", "With expected answer"),
    "eval_metric_n_unanswerable": ("无答案题", "Unanswerable"),
    "eval_metric_n_routing": ("可判路由的题", "Routing judged"),
    "eval_metric_of": ("共 {n} 题", "of {n}"),
    "eval_metrics_help": (
        "命中@k：出处（条目或页码）出现在前 k 条检索结果中的题所占比例；回答含预期答案：预期答案的每一部分都出现在回答中；"
        "EM / F1：短答案与预期答案比较（数字按数值，中文按字）；拒答率：标为无答案的题被拒答的比例；"
        "路由正确：smart 偏向的类型是出处所在的类型（或未偏向）。",
        "Recall@k: questions whose evidence (item or page) is in the top k hits; answer holds "
        "expected: every part of the expected answer is in the answer; EM / F1: the short "
        "answer against the expected one (numbers by value, Chinese by character); declined: "
        "unanswerable questions the answer declined; routing right: the type smart preferred "
        "is the evidence's (or it preferred none).",
    ),
    # per question
    "eval_questions": ("每道题", "Questions"),
    "eval_col_passed": ("通过", "Passed"),
    "eval_col_rank": ("出处排名", "Evidence rank"),
    "eval_col_holds": ("含预期答案", "Holds expected"),
    "eval_col_short": ("短答案", "Short answer"),
    "eval_col_declined": ("拒答", "Declined"),
    "eval_col_routing": ("路由", "Routing"),
    "eval_col_latency": ("耗时（毫秒）", "Time (ms)"),
    "eval_col_error": ("错误", "Error"),
    "eval_filter": ("显示", "Show"),
    "eval_filter_all": ("全部", "All"),
    "eval_filter_failed": ("未通过", "Not passed"),
    "eval_filter_passed": ("通过", "Passed"),
    "eval_pick_question": (
        "打开一道题：检索结果、提示词、回答与引用核对",
        "Open a question: its hits, prompt, answer and citation check",
    ),
    "eval_question_head": ("题目 {id}：{question}", "Question {id}: {question}"),
    "eval_expected_line": ("预期答案：{expected}", "Expected: {expected}"),
    "eval_unanswerable_line": (
        "预期：库中无答案，应拒答",
        "Expected: no answer in the library, declined",
    ),
    "eval_no_turn": ("这道题没有保存回答。", "No answer was kept for this question."),
    "eval_yes": ("是", "yes"),
    "eval_no": ("否", "no"),
    "eval_routing_all": ("全部类型", "all types"),
    # compare
    "eval_compare_caption": (
        "按题目编号对齐两次运行：先列出退步的题，再列出进步的题，然后是指标变化。",
        "Two runs matched by question id: regressions first, then improvements, then the "
        "metrics' changes.",
    ),
    "eval_compare_need": (
        "至少需要两次已完成的运行才能比较。",
        "Comparing needs two finished runs.",
    ),
    "eval_before": ("之前（基线）", "Before (baseline)"),
    "eval_after": ("之后", "After"),
    "eval_counts": (
        "退步 {regressed} · 进步 {improved} · 有变化 {changed} · 相同 {same}",
        "Regressed {regressed} · improved {improved} · changed {changed} · same {same}",
    ),
    "eval_change_regressed": ("⬇️ 退步", "⬇️ regressed"),
    "eval_change_improved": ("⬆️ 进步", "⬆️ improved"),
    "eval_change_changed": ("↔️ 有变化", "↔️ changed"),
    "eval_change_same": ("相同", "same"),
    "eval_col_change": ("变化", "Change"),
    "eval_col_metric": ("指标", "Metric"),
    "eval_col_delta": ("变化", "Change"),
    "eval_only_one": (
        "只在一次运行中出现的题：之前 {before} 道，之后 {after} 道。",
        "Questions in one run only: {before} before, {after} after.",
    ),
}
