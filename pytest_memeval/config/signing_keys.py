"""Ed25519 key files for run bundles: --memeval-sign KEYFILE (a private key) and
--memeval-public-key FILE (the key a verifier trusts). Each problem is one line naming the
option and the file.

Both take the forms the usual tools write:

    openssl genpkey -algorithm ed25519 -out memeval-key.pem       # private key (PKCS#8 PEM)
    openssl pkey -in memeval-key.pem -pubout -out memeval-key.pub # its public key (PEM)
    ssh-keygen -t ed25519 -N '' -f memeval-key                    # or OpenSSH's: memeval-key(.pub)

A private key protected by a passphrase is refused (a run cannot ask for it).

cryptography is imported where a key is read: it is about 7 MiB of every process that loads
the plugin, and a run that signs nothing never needs it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..files.user_files import read_bytes

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

#: a key file is a few hundred bytes; anything far larger is not one
_MAX_BYTES = 64 * 1024


def read_private_key(option: str, path: Path) -> Ed25519PrivateKey:
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key, load_ssh_private_key

    raw = _read(option, path)
    key = None
    for load in (load_pem_private_key, load_ssh_private_key):
        try:
            key = load(raw, password=None)
        except TypeError:
            raise ConfigError(f"{option}: {path} is protected by a passphrase; give a key without one") from None
        except (ValueError, UnsupportedAlgorithm):
            continue
        break
    if key is None:
        raise ConfigError(f"{option}: {path} is not a private key in PEM or OpenSSH form")
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"{option}: {path} is a {type(key).__name__.removeprefix('_')}, not an Ed25519 key")
    return key


def read_public_key(option: str, path: Path) -> Ed25519PublicKey:
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key, load_ssh_public_key

    raw = _read(option, path)
    key = None
    for load in (load_pem_public_key, load_ssh_public_key):
        try:
            key = load(raw)
        except (ValueError, TypeError, UnsupportedAlgorithm):
            continue
        break
    if key is None:
        raise ConfigError(f"{option}: {path} is not a public key in PEM or OpenSSH form")
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigError(f"{option}: {path} is a {type(key).__name__.removeprefix('_')}, not an Ed25519 key")
    return key


def _read(option: str, path: Path) -> bytes:
    try:
        raw = read_bytes(path.expanduser())
    except OSError as exc:
        raise ConfigError(f"{option}: cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > _MAX_BYTES:
        raise ConfigError(f"{option}: {path} is {len(raw)} bytes, too large to be a key")
    return raw
