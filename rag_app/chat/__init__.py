"""Conversations: saved turns, their export, and the audit log of every answer."""
