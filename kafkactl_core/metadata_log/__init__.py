"""KRaft's metadata log decoded: ``__cluster_metadata`` segments and snapshots, pure Python.

``wire`` reads Kafka's primitive types within bounds; ``schema`` and ``record_types`` hold
the message definitions and compile their decoders; ``batches`` reads record batches of magic 2
(CRC-32C, codecs, records); ``payloads`` decodes metadata and control records into the JSON
objects Kafka's dump tool prints; ``segments`` walks a whole file, damage and all.
"""
