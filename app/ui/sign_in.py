"""Connection profiles and the sign-in dialog.

The embedded sandbox is the default profile; any number of named servers can be added (base
URL, partner code, user, optional CA bundle). Profiles live in the settings; passwords only
in the OS keyring (or, without one, for this session only, and the dialog says so).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.api.credentials import Credentials
from app.api.errors import ApiConnectionError, ApiError, InvalidInput, Unauthorized
from app.core.limits import MAX_PARTNER_CODE
from app.ui.tasks import TaskGroup

SANDBOX = "Embedded sandbox"
NEW_SERVER = "New server…"
SANDBOX_USER = "demo"
SANDBOX_PASSWORD = "demo"  # noqa: S105 - the sandbox's published demo password
SANDBOX_PARTNER_CODE = "partner-desk"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class ServerProfile:
    name: str
    base_url: str  # the API's root, without /v1
    partner_code: str
    user: str
    ca_bundle: str = ""  # a PEM file to trust besides the system's; verification stays on

    @property
    def is_sandbox(self) -> bool:
        return self.name == SANDBOX

    def check(self) -> None:
        """Refuse a profile that cannot work, naming the field."""
        if not self.name.strip():
            raise InvalidInput("name", "give the server a name")
        if self.name in (SANDBOX, NEW_SERVER):
            raise InvalidInput("name", f"{self.name!r} is reserved")
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise InvalidInput("base URL", "an address such as https://api.bank.example")
        if parts.scheme == "http" and parts.hostname not in _LOOPBACK:
            raise InvalidInput("base URL", "use https: only this computer may be reached by http")
        if not 0 < len(self.partner_code) <= MAX_PARTNER_CODE:
            raise InvalidInput("partner code", f"1 to {MAX_PARTNER_CODE} characters")
        if not self.user.strip():
            raise InvalidInput("user", "enter the user name")
        if self.ca_bundle and not Path(self.ca_bundle).is_file():
            raise InvalidInput("CA bundle", f"{self.ca_bundle} is not a file")


SANDBOX_PROFILE = ServerProfile(SANDBOX, "", SANDBOX_PARTNER_CODE, SANDBOX_USER)


class ProfileStore:
    def __init__(self, settings: QSettings) -> None:
        self._settings = settings

    def names(self) -> list[str]:
        self._settings.beginGroup("profiles")
        names = sorted(self._settings.childGroups())
        self._settings.endGroup()
        return [SANDBOX, *names]

    def get(self, name: str) -> ServerProfile | None:
        if name == SANDBOX:
            return SANDBOX_PROFILE
        if name not in self.names():
            return None
        key = f"profiles/{name}"
        return ServerProfile(
            name=name,
            base_url=str(self._settings.value(f"{key}/base_url", "")),
            partner_code=str(self._settings.value(f"{key}/partner_code", "")),
            user=str(self._settings.value(f"{key}/user", "")),
            ca_bundle=str(self._settings.value(f"{key}/ca_bundle", "")),
        )

    def save(self, profile: ServerProfile) -> None:
        key = f"profiles/{profile.name}"
        for field in ("base_url", "partner_code", "user", "ca_bundle"):
            self._settings.setValue(f"{key}/{field}", getattr(profile, field))

    def delete(self, name: str) -> None:
        self._settings.remove(f"profiles/{name}")

    @property
    def last(self) -> str:
        name = str(self._settings.value("connection/last", SANDBOX))
        return name if name in self.names() else SANDBOX

    @last.setter
    def last(self, name: str) -> None:
        self._settings.setValue("connection/last", name)


SignIn = Callable[[ServerProfile, str], Awaitable[None]]


class SignInDialog(QDialog):
    """Choose or describe a server and sign in; ``sign_in`` connects and checks the
    credentials, raising ApiError when that fails."""

    def __init__(
        self,
        store: ProfileStore,
        credentials: Credentials,
        sign_in: SignIn,
        tasks: TaskGroup,
        *,
        current: str | None = None,
        reason: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Sign in")
        self.setObjectName("signInDialog")
        self.setMinimumWidth(520)
        self._store = store
        self._credentials = credentials
        self._sign_in = sign_in
        self._tasks = tasks
        self.signed_in: ServerProfile | None = None

        self.profile = QComboBox()
        self.profile.setObjectName("profileChoice")
        self.profile.addItems([*store.names(), NEW_SERVER])
        self.name = QLineEdit()
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("https://api.bank.example")
        self.partner_code = QLineEdit()
        self.partner_code.setMaxLength(MAX_PARTNER_CODE)
        self.user = QLineEdit()
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.ca_bundle = QLineEdit()
        self.ca_bundle.setPlaceholderText("optional: a PEM file of extra trusted CAs")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        ca_row = QHBoxLayout()
        ca_row.addWidget(self.ca_bundle, 1)
        ca_row.addWidget(browse)
        self.reason = QLabel(reason)
        self.reason.setWordWrap(True)
        self.reason.setVisible(bool(reason))
        self.keyring_note = QLabel(
            ""
            if credentials.persistent
            else "No system keyring is available: the password is kept for this session only."
        )
        self.keyring_note.setWordWrap(True)
        self.keyring_note.setVisible(not credentials.persistent)
        self.problem = QLabel("")
        self.problem.setObjectName("signInProblem")
        self.problem.setStyleSheet("color: #b3261e;")
        self.problem.setWordWrap(True)

        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        form.addRow("Connection:", self.profile)
        form.addRow("Name:", self.name)
        form.addRow("Base URL:", self.base_url)
        form.addRow("Partner code:", self.partner_code)
        form.addRow("User:", self.user)
        form.addRow("Password:", self.password)
        form.addRow("CA bundle:", ca_row)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.sign_in_button = self.buttons.addButton(
            "Sign in", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.delete_button = self.buttons.addButton(
            "Delete profile", QDialogButtonBox.ButtonRole.DestructiveRole
        )
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        self.delete_button.clicked.connect(self._delete)
        layout = QVBoxLayout(self)
        layout.addWidget(self.reason)
        layout.addLayout(form)
        layout.addWidget(self.keyring_note)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.profile.currentTextChanged.connect(self._choose)
        self.profile.setCurrentText(current or store.last)
        self._choose(self.profile.currentText())

    def _choose(self, name: str) -> None:
        profile = self._store.get(name)
        new = name == NEW_SERVER
        sandbox = name == SANDBOX
        for widget in (self.name, self.base_url, self.partner_code, self.user, self.ca_bundle):
            widget.setEnabled(not sandbox)
        self.password.setEnabled(not sandbox)
        self.delete_button.setEnabled(not new and not sandbox)
        if new or profile is None:
            for widget in (
                self.name,
                self.base_url,
                self.partner_code,
                self.user,
                self.password,
                self.ca_bundle,
            ):
                widget.clear()
            self.name.setFocus()
            return
        self.name.setText(profile.name)
        self.base_url.setText(profile.base_url or "started by Partner Desk")
        self.partner_code.setText(profile.partner_code)
        self.user.setText(profile.user)
        self.ca_bundle.setText(profile.ca_bundle)
        if sandbox:
            self.password.setText(SANDBOX_PASSWORD)
        else:
            self.password.setText(self._credentials.get(profile.name, profile.user) or "")
            self.password.setFocus()

    def described(self) -> ServerProfile:
        if self.profile.currentText() == SANDBOX:
            return SANDBOX_PROFILE
        return ServerProfile(
            name=self.name.text().strip(),
            base_url=self.base_url.text().strip().rstrip("/"),
            partner_code=self.partner_code.text().strip(),
            user=self.user.text().strip(),
            ca_bundle=self.ca_bundle.text().strip(),
        )

    def submit(self) -> None:
        self._tasks.spawn(self._submit())

    async def _submit(self) -> None:
        profile = self.described()
        password = SANDBOX_PASSWORD if profile.is_sandbox else self.password.text()
        try:
            if not profile.is_sandbox:
                profile.check()
                if not password:
                    raise InvalidInput("password", "enter the password")
        except InvalidInput as exc:
            self.problem.setText(str(exc))
            return
        self.problem.setText("Signing in…")
        self.sign_in_button.setEnabled(False)
        try:
            await self._sign_in(profile, password)
        except Unauthorized:
            self.problem.setText("Sign-in refused: check the user and the password.")
            return
        except ApiConnectionError as exc:
            self.problem.setText(str(exc))
            return
        except ApiError as exc:
            self.problem.setText(f"Sign-in failed: {exc}")
            return
        except InvalidInput as exc:  # an unusable CA bundle, found when connecting
            self.problem.setText(str(exc))
            return
        finally:
            self.sign_in_button.setEnabled(True)
        if not profile.is_sandbox:
            self._store.save(profile)
            self._credentials.set(profile.name, profile.user, password)
        self._store.last = profile.name
        self.signed_in = profile
        self.accept()

    def _delete(self) -> None:
        name = self.profile.currentText()
        profile = self._store.get(name)
        if profile is None or profile.is_sandbox:
            return
        self._credentials.delete(profile.name, profile.user)
        self._store.delete(name)
        self.profile.removeItem(self.profile.currentIndex())

    def _browse(self) -> None:
        dialog = QFileDialog(self, "CA bundle")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilter("PEM files (*.pem *.crt);;All files (*)")
        dialog.fileSelected.connect(self.ca_bundle.setText)
        dialog.open()  # never exec(): the loop keeps running
