"""The sign-in dialog: choose the embedded sandbox or a named server, or describe a new one.

Passwords go to the OS keyring only (or, without one, are kept for this session only, and the
dialog says so). Sign in is the default button; deleting a profile asks first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.api.credentials import Credentials
from app.api.errors import ApiConnectionError, ApiError, InvalidInput, Unauthorized
from app.ui.common.names import NamedDialog, name_box, named
from app.ui.common.notice import NoticeLabel
from app.ui.connection.profiles import (
    NEW_SERVER,
    SANDBOX,
    SANDBOX_PASSWORD,
    SANDBOX_PROFILE,
    ProfileStore,
    ServerProfile,
)
from app.ui.shell.dialogs import opened
from app.ui.shell.tasks import TaskGroup

SignIn = Callable[[ServerProfile, str], Awaitable[None]]


class SignInDialog(NamedDialog):
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
        self._in_use = current  # the window's session runs on it: not deleted under it
        self.signed_in: ServerProfile | None = None

        self.profile = QComboBox()
        self.profile.setObjectName("profileChoice")
        self.profile.addItems([*store.names(), NEW_SERVER])
        self.name = QLineEdit()
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("https://api.bank.example")
        self.gateway_url = QLineEdit()
        self.gateway_url.setPlaceholderText("optional: the card gateway, if not base URL/gateway")
        self.events_store = QLineEdit()
        self.events_store.setPlaceholderText(
            "optional: the webhook receiver's store, a file or postgresql://…"
        )
        self.partner_code = QLineEdit()
        self.user = QLineEdit()
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.ca_bundle = QLineEdit()
        self.ca_bundle.setPlaceholderText("optional: a PEM file of extra trusted CAs")
        browse = QPushButton("Browse…")
        browse.setAutoDefault(False)  # Enter signs in; it never opens the file chooser
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
        self.problem = NoticeLabel("")
        self.problem.setObjectName("signInProblem")
        self.problem.setStyleSheet("color: #b3261e;")
        self.problem.setWordWrap(True)

        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        form.addRow("Connection:", self.profile)
        form.addRow("Name:", self.name)
        form.addRow("Base URL:", self.base_url)
        form.addRow("Gateway URL:", self.gateway_url)
        form.addRow("Events store:", self.events_store)
        form.addRow("Partner code:", self.partner_code)
        form.addRow("User:", self.user)
        form.addRow("Password:", self.password)
        form.addRow("CA bundle:", ca_row)
        for name, widget, spoken in (
            ("profileName", self.name, "Name"),
            ("baseUrl", self.base_url, "Base URL"),
            ("gatewayUrl", self.gateway_url, "Gateway URL"),
            ("eventsStore", self.events_store, "Events store"),
            ("partnerCode", self.partner_code, "Partner code"),
            ("user", self.user, "User"),
            ("password", self.password, "Password"),
            ("caBundle", self.ca_bundle, "CA bundle"),
            ("caBundleBrowse", browse, "Browse for the CA bundle"),
        ):
            named(widget, f"signIn.{name}", spoken)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.sign_in_button = self.buttons.addButton(
            "Sign in", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.delete_button = self.buttons.addButton(
            "Delete profile", QDialogButtonBox.ButtonRole.DestructiveRole
        )
        named(self.sign_in_button, "signIn.submit", "Sign in")
        named(self.delete_button, "signIn.delete", "Delete profile")
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        assert cancel is not None
        named(cancel, "signIn.cancel", "Cancel")
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        self.delete_button.clicked.connect(self._delete)
        # Enter signs in, wherever the focus is; deleting needs its own click and a yes
        self.sign_in_button.setDefault(True)
        for button in self.buttons.buttons():
            if button is not self.sign_in_button and isinstance(button, QPushButton):
                button.setAutoDefault(False)
        self.confirmation: QMessageBox | None = None
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
        self.problem.setText("")  # a problem of the profile shown before
        profile = self._store.get(name)
        new = name == NEW_SERVER
        sandbox = name == SANDBOX
        for widget in (
            self.name,
            self.base_url,
            self.gateway_url,
            self.events_store,
            self.partner_code,
            self.user,
            self.ca_bundle,
        ):
            widget.setEnabled(not sandbox)
        self.password.setEnabled(not sandbox)
        in_use = name == self._in_use
        self.delete_button.setEnabled(not new and not sandbox and not in_use)
        self.delete_button.setToolTip(
            f"{name} is the profile in use: sign in with another before deleting it"
            if in_use and not sandbox
            else ""
        )
        if new or profile is None:
            for widget in (
                self.name,
                self.base_url,
                self.gateway_url,
                self.events_store,
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
        self.gateway_url.setText(profile.gateway_url or ("its /gateway" if sandbox else ""))
        self.events_store.setText(
            profile.events_store or ("received by Partner Desk itself" if sandbox else "")
        )
        self.partner_code.setText(profile.partner_code)
        self.user.setText(profile.user)
        self.ca_bundle.setText(profile.ca_bundle)
        if sandbox:
            self.password.setText(SANDBOX_PASSWORD)
        else:
            self.password.setText(self._credentials.get(profile.name, profile.user) or "")
            # the first thing still to type: the user of a profile made on the command line
            (self.password if profile.user else self.user).setFocus()

    def described(self) -> ServerProfile:
        if self.profile.currentText() == SANDBOX:
            return SANDBOX_PROFILE
        return ServerProfile(
            name=self.name.text().strip(),
            base_url=self.base_url.text().strip().rstrip("/"),
            partner_code=self.partner_code.text().strip(),
            user=self.user.text().strip(),
            ca_bundle=self.ca_bundle.text().strip(),
            gateway_url=self.gateway_url.text().strip().rstrip("/"),
            events_store=self.events_store.text().strip(),
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
                    raise InvalidInput("Password", "enter the password")
        except InvalidInput as exc:
            self.problem.setText(str(exc))
            return
        self.problem.setText("Signing in…")
        self.sign_in_button.setEnabled(False)
        try:
            await self._sign_in(profile, password)
        except Unauthorized:
            self._failed("Sign-in refused: check the user and the password.")
            return
        except (ApiConnectionError, InvalidInput) as exc:  # InvalidInput: a bad CA bundle
            self._failed(str(exc))
            return
        except ApiError as exc:
            self._failed(f"Sign-in failed: {exc}")
            return
        finally:
            self.sign_in_button.setEnabled(True)
            self.sign_in_button.setDefault(True)  # disabling it took that away
        if not profile.is_sandbox:
            self._store.save(profile)
            self._credentials.set(profile.name, profile.user, password)
        self._store.last = profile.name
        self.signed_in = profile
        self.accept()

    def _failed(self, message: str) -> None:
        self.problem.setText(message)
        # the focus goes where the fix is typed, never to Delete profile
        (self.password if self.password.isEnabled() else self.sign_in_button).setFocus()

    def _delete(self) -> None:
        self._tasks.spawn(self._confirm_delete())

    async def _confirm_delete(self) -> None:
        name = self.profile.currentText()
        profile = self._store.get(name)
        if profile is None or profile.is_sandbox or name == self._in_use:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Delete profile",
            f"Delete the connection profile {name!r} and its saved password?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        name_box(box, "confirmation")
        self.confirmation = box
        try:
            confirmed = await opened(box) == QMessageBox.StandardButton.Yes
        finally:
            self.confirmation = None
            box.deleteLater()
        if not confirmed:
            return
        self._credentials.delete(profile.name, profile.user)
        self._store.delete(name)
        self.profile.removeItem(self.profile.findText(name))

    def _browse(self) -> None:
        dialog = QFileDialog(self, "CA bundle")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilter("PEM files (*.pem *.crt);;All files (*)")
        dialog.fileSelected.connect(self.ca_bundle.setText)
        dialog.open()  # never exec(): the loop keeps running
