"""People's accounts: a name reserved by a password, hashed with Argon2.

The password is hashed with argon2-cffi's `PasswordHasher` (Argon2id, a random
salt, its parameters kept in the hash), never stored or logged in clear; a
check costs about as much as a hash, so guessing is slow. A name is an
account's in any case (``Ann`` and ``ann`` are one account).
"""

from __future__ import annotations

from typing import Any

from csl_game.server.game import Rejected
from csl_game.server.messages import NAME_PATTERN

__all__ = ["hash_password", "password_matches", "check_signup", "MIN_PASSWORD", "MAX_PASSWORD"]

MIN_PASSWORD = 8
MAX_PASSWORD = 128
_HASHER: Any = None


def _hasher() -> Any:
    global _HASHER
    if _HASHER is None:
        from argon2 import PasswordHasher  # the server's extra (csl-game[server])

        _HASHER = PasswordHasher()
    return _HASHER


def check_signup(name: str, password: str) -> None:
    """A new account's name and password are acceptable.

    Raises:
        Rejected: the name is no name, or the password too short or too long.
    """
    if not NAME_PATTERN.fullmatch(name):
        raise Rejected("a name is letters, digits, spaces and _.+- (1 to 40), starting "
                       "with a letter or digit")
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Rejected(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")


def hash_password(password: str) -> str:
    """`password` hashed (Argon2id, salted): what the database keeps."""
    return str(_hasher().hash(password))


def password_matches(stored: str, password: str) -> bool:
    """Whether `password` is the one `stored` was made from."""
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return bool(_hasher().verify(stored, password))
    except (VerificationError, InvalidHashError):
        return False
