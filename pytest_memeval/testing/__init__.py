"""A conformance kit for memory-system adapters.

Run it against any adapter, bundled or your own:

    pytest --pyargs pytest_memeval.testing --memsystem=pkg.mod:Class
    pytest --pyargs pytest_memeval.testing --memsystem=chroma --memeval-adapter-config=chroma.toml -n 2

Every check gets a fresh adapter built the way a run builds it (`from_memeval(config,
resources)` or `Class(**config)`, settings from --memeval-adapter-config), with a private work
directory. The checks: the protocol's shape, namespace isolation, reset, k and ranking,
dump against retrieve, unicode, very long inputs, empty queries and sessions, opaque
namespace names, concurrent workers, idempotent close, and raising on malformed input.
An adapter may declare `stores_nothing = True` (a floor) or `honours_k = False` (returns
everything whatever k is); the checks that do not apply are then skipped.
"""
