"""Configuration a broker prints in its own server.log (``silver.broker_configs``).

* ``KafkaConfig values:`` then one ``\\tkey = value`` line per config key, the logger on a line
  of its own (``kafka.server.KafkaConfig`` up to 3.x, ``AbstractConfig`` from 4.0; KRaft
  controllers print it too). Kafka prints ``[hidden]`` for passwords and JAAS configs.
* ``Created log for partition t-p in dir with properties {k=v, ...}`` (``kafka.log.LogManager``):
  the topic's overrides (the captures' 2.8 to 4.1, as printed since). Older releases wrote the
  whole effective topic config, ``{k -> v, ...}.`` with a final dot, after ``[t,p]`` (0.10, a
  real line) or, as Kafka's ``TopicPartition`` prints it, ``t-p`` (no real line at hand).

The entries only recognise the records; ``kafkactl_core.grammars.config_lines`` cuts them into
one entry per key.
"""

from __future__ import annotations

from kafkactl_core.grammars.entry import GrammarEntry, Mode, event
from kafkactl_core.grammars.events import EventType as T
from kafkactl_core.grammars.fragments import REST, TEXT, TP, TPB

ENTRIES: tuple[GrammarEntry, ...] = (
    event(
        "config/kafka_config_values",
        T.BROKER_CONFIG_LOGGED,
        "KafkaConfig values:",
        "KafkaConfig values:[ ]*(?:\\n\\t[^\\n]*)*\\n?",
        mode=Mode.ANY,
    ),
    event(
        "config/log_created",
        T.TOPIC_CONFIG_LOGGED,
        "Created log for partition ",
        f"Created log for partition {TP} in {REST} with properties \\{{{TEXT}\\}}",
        "topic partition detail",
        mode=Mode.ANY,
    ),
    event(
        "config/log_created_dotted",
        T.TOPIC_CONFIG_LOGGED,
        "Created log for partition ",
        f"Created log for partition {TP} in {REST} with properties \\{{{TEXT}\\}}\\.",
        "topic partition detail",
        mode=Mode.ANY,
    ),
    event(
        "config/log_created_effective",
        T.TOPIC_CONFIG_LOGGED,
        "Created log for partition [",
        f"Created log for partition {TPB} in {REST} with properties \\{{{TEXT}\\}}\\.",
        "topic partition detail",
        mode=Mode.ANY,
    ),
)
