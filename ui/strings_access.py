"""The labels of knowledge-base permissions (issue 28): roles, the actions a role allows, a
denial, and the Library page's Members section (ui/render_members.py, ui/permissions.py)."""

# key -> (Chinese, English). Placeholders use str.format names.
ACCESS_TEXTS: dict[str, tuple[str, str]] = {
    "role_reader": ("读者", "reader"),
    "role_editor": ("编辑", "editor"),
    "role_admin": ("管理员", "admin"),
    "kind_user": ("用户", "user"),
    "kind_group": ("组", "group"),
    # the actions a denial names (rag_app.access: AccessDenied.action)
    "access_action_ask": ("提问", "ask"),
    "access_action_search": ("检索", "search"),
    "access_action_upload": ("上传文档", "upload documents"),
    "access_action_delete_document": ("删除文档", "delete documents"),
    "access_action_delete_knowledge_base": ("删除知识库", "delete the knowledge base"),
    "access_action_manage_members": ("管理成员", "manage members"),
    "access_action_claim": ("认领知识库", "claim the knowledge base"),
    "access_action_run_evaluations": ("运行评测", "run evaluations"),
    "access_action_create_knowledge_base": ("创建知识库", "create knowledge bases"),
    "access_denied": (
        "你没有在知识库「{kb}」中{action}的权限（需要{need}角色）。",
        'You may not {action} in knowledge base "{kb}" (it needs the {need} role).',
    ),
    "access_sign_in_to_create": (
        "登录后才能创建知识库。",
        "Sign in to create knowledge bases.",
    ),
    # the Library page's Members section
    "members_section": ("成员", "Members"),
    "members_owner": ("所有者：{owner}", "Owner: {owner}"),
    "members_shared": (
        "共享知识库：所有登录用户都可编辑，访客只读。",
        "Shared knowledge base: every signed-in user edits it, visitors read it.",
    ),
    "members_your_role": ("你的角色：{role}", "Your role: {role}"),
    "members_none": ("还没有成员。", "No members yet."),
    "members_col_name": ("名称", "Name"),
    "members_col_kind": ("类型", "Kind"),
    "members_col_role": ("角色", "Role"),
    "members_name": ("用户邮箱或组名", "User e-mail or group name"),
    "members_kind": ("类型", "Kind"),
    "members_role": ("角色", "Role"),
    "members_add": ("添加成员", "Add member"),
    "members_added": ("已将「{name}」设为{role}", 'Made "{name}" {role}'),
    "members_remove": ("移除", "Remove"),
    "members_remove_pick": ("要移除的成员", "Member to remove"),
    "members_removed": ("已移除「{name}」", 'Removed "{name}"'),
    "members_need_name": ("请填写成员名称。", "Give the member's name."),
    "members_claim": ("认领为我的知识库", "Claim as mine"),
    "members_claim_help": (
        "认领后你成为所有者（管理员），其他人需被添加为成员才能看到它。",
        "You become its owner (admin); others then need to be added as members to see it.",
    ),
    "members_claimed": ("知识库「{kb}」现在归你所有", 'Knowledge base "{kb}" is now yours'),
    "members_help": (
        "读者：提问、检索、查看文档、对话、审计与评测；编辑：另可上传和删除文档、运行评测；"
        "管理员：另可管理成员和删除知识库。组来自登录声明（groups / roles）。",
        "Reader: ask, search, see documents, conversations, audit records and evaluations; "
        "editor: also upload and delete documents and run evaluations; admin: also manage "
        "members and delete the knowledge base. Groups come from the sign-in's claims "
        "(groups / roles).",
    ),
}
