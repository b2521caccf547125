"""The probe app's models, one module per context; every model is importable from here.

teams: Team, Membership, Invitation, UserPreference (and the roles); logins: LoginAttempt;
banks: Bank, Block, Item, KeyEntry and their history; discussion: KeyEntryComment;
audit: AuditEvent; prompts: PromptVersion;
configs: ModelConfig; experiments: Experiment, ExperimentItem; runs: Run, Attempt, Response.
bases: the abstract bases grading's models share (VersionedText, ProviderCall, LeasedWork).
"""

from .audit import AuditEvent
from .banks import AnswerKind, Bank, Block, Item, ItemVersion, KeyEntry, KeyEntryRevision
from .configs import ModelConfig
from .discussion import EDIT_WINDOW, KeyEntryComment
from .experiments import Experiment, ExperimentItem
from .logins import LoginAttempt
from .notifications import Notification
from .prompts import PromptVersion
from .runs import Attempt, Response, Run
from .teams import ROLE_RANK, Invitation, Membership, Role, Team, UserPreference, role_at_least

__all__ = [
    "EDIT_WINDOW",
    "ROLE_RANK",
    "AnswerKind",
    "Attempt",
    "AuditEvent",
    "Bank",
    "Block",
    "Experiment",
    "ExperimentItem",
    "Invitation",
    "Item",
    "ItemVersion",
    "KeyEntry",
    "KeyEntryComment",
    "KeyEntryRevision",
    "LoginAttempt",
    "Membership",
    "ModelConfig",
    "Notification",
    "PromptVersion",
    "Response",
    "Role",
    "Run",
    "Team",
    "UserPreference",
    "role_at_least",
]
