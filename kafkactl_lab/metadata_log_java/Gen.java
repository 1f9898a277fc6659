/*
 * Metadata log segments written by Kafka's own classes, for checking our decoder against them.
 *
 * Run as a single-file source program on a Kafka release's classpath (Java 11+):
 *
 *   java -cp <kafka 4.1.1 classpath> Gen.java codecs <folder>
 *       one segment per codec: <folder>/<codec>/00000000000000000000.log for none, gzip,
 *       snappy, lz4 and zstd, every batch of it compressed with that codec, holding the same
 *       records: most metadata record types and versions, control batches (KRaftVersion,
 *       KRaftVoters, LeaderChange) and a transactional batch.
 *   java -cp <...> Gen.java bench <file> <megabytes> [codec]
 *       one large segment of a controller's usual traffic (NoOps, ISR and leader changes in
 *       batches of several records, some topic creations, broker registrations, fencing,
 *       configs, producer id blocks, leader changes), uncompressed unless a codec is named.
 *
 * Records are serialized by org.apache.kafka.metadata.MetadataRecordSerde from
 * ApiMessageAndVersion of the generated record classes, batches are built by
 * MemoryRecordsBuilder with Compression.of(type).build(). Output is deterministic: fixed
 * seeds, fixed timestamps, fixed ids.
 */

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.KRaftVersionRecord;
import org.apache.kafka.common.message.LeaderChangeMessage;
import org.apache.kafka.common.message.VotersRecord;
import org.apache.kafka.common.metadata.AbortTransactionRecord;
import org.apache.kafka.common.metadata.AccessControlEntryRecord;
import org.apache.kafka.common.metadata.BeginTransactionRecord;
import org.apache.kafka.common.metadata.BrokerRegistrationChangeRecord;
import org.apache.kafka.common.metadata.ClientQuotaRecord;
import org.apache.kafka.common.metadata.ConfigRecord;
import org.apache.kafka.common.metadata.DelegationTokenRecord;
import org.apache.kafka.common.metadata.EndTransactionRecord;
import org.apache.kafka.common.metadata.FeatureLevelRecord;
import org.apache.kafka.common.metadata.FenceBrokerRecord;
import org.apache.kafka.common.metadata.NoOpRecord;
import org.apache.kafka.common.metadata.PartitionChangeRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.ProducerIdsRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.RegisterControllerRecord;
import org.apache.kafka.common.metadata.RemoveTopicRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.metadata.UnfenceBrokerRecord;
import org.apache.kafka.common.metadata.UnregisterBrokerRecord;
import org.apache.kafka.common.metadata.UserScramCredentialRecord;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;

public class Gen {
    static final long START_MS = 1735689600000L; // 2025-01-01T00:00:00Z
    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};

    /** Appends batches to one segment file, keeping the next offset, the clock and the epoch. */
    static final class Segment implements AutoCloseable {
        final FileChannel out;
        final Compression compression;
        long nextOffset = 0;
        long clock = START_MS;
        int epoch = 1;
        long bytes = 0;
        long records = 0;

        Segment(Path path, Compression compression) throws IOException {
            Files.createDirectories(path.toAbsolutePath().getParent());
            this.out = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
            this.compression = compression;
        }

        MemoryRecordsBuilder builder(boolean control, long producerId, short producerEpoch,
                                     int baseSequence, boolean transactional) {
            return MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2,
                compression, TimestampType.CREATE_TIME, nextOffset, RecordBatch.NO_TIMESTAMP,
                producerId, producerEpoch, baseSequence, transactional, control, epoch);
        }

        void write(MemoryRecordsBuilder builder) throws IOException {
            MemoryRecords built = builder.build();
            ByteBuffer buf = built.buffer();
            bytes += buf.remaining();
            records += builder.numRecords();
            while (buf.hasRemaining()) {
                out.write(buf);
            }
            nextOffset += builder.numRecords();
        }

        /** One batch of metadata records, as the controller appends an event's records. */
        void metadata(List<ApiMessageAndVersion> batch) throws IOException {
            metadata(batch, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH,
                RecordBatch.NO_SEQUENCE, false, null);
        }

        void metadata(List<ApiMessageAndVersion> batch, long producerId, short producerEpoch,
                      int baseSequence, boolean transactional, Header[] firstHeaders)
                throws IOException {
            MemoryRecordsBuilder builder =
                builder(false, producerId, producerEpoch, baseSequence, transactional);
            for (int i = 0; i < batch.size(); i++) {
                Header[] headers = i == 0 && firstHeaders != null ? firstHeaders : new Header[0];
                builder.append(clock, null, serialize(batch.get(i)), headers);
                clock += 1;
            }
            write(builder);
            clock += 7;
        }

        void leaderChange(int leader, int[] voters) throws IOException {
            epoch += 1;
            List<LeaderChangeMessage.Voter> list = new ArrayList<>();
            for (int id : voters) {
                list.add(new LeaderChangeMessage.Voter().setVoterId(id));
            }
            LeaderChangeMessage message = new LeaderChangeMessage()
                .setVersion((short) 0)
                .setLeaderId(leader)
                .setVoters(list)
                .setGrantingVoters(list.subList(0, list.size() / 2 + 1));
            MemoryRecordsBuilder builder = builder(true, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
            builder.appendLeaderChangeMessage(clock, message);
            write(builder);
            clock += 3;
        }

        void bootstrapVoters(int[] voters) throws IOException {
            MemoryRecordsBuilder builder = builder(true, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false);
            builder.appendKRaftVersionMessage(clock,
                new KRaftVersionRecord().setVersion((short) 0).setKRaftVersion((short) 1));
            List<VotersRecord.Voter> list = new ArrayList<>();
            for (int id : voters) {
                VotersRecord.EndpointCollection endpoints = new VotersRecord.EndpointCollection();
                endpoints.add(new VotersRecord.Endpoint()
                    .setName("CONTROLLER").setHost("controller-" + id).setPort(9093));
                list.add(new VotersRecord.Voter()
                    .setVoterId(id)
                    .setVoterDirectoryId(uuid(7000 + id))
                    .setEndpoints(endpoints)
                    .setKRaftVersionFeature(new VotersRecord.KRaftVersionFeature()
                        .setMinSupportedVersion((short) 0).setMaxSupportedVersion((short) 1)));
            }
            builder.appendVotersMessage(clock,
                new VotersRecord().setVersion((short) 0).setVoters(list));
            write(builder);
            clock += 3;
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    static byte[] serialize(ApiMessageAndVersion record) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = MetadataRecordSerde.INSTANCE.recordSize(record, cache);
        ByteBuffer buf = ByteBuffer.allocate(size);
        MetadataRecordSerde.INSTANCE.write(record, cache, new ByteBufferAccessor(buf));
        return buf.array();
    }

    static ApiMessageAndVersion v(ApiMessage message, int version) {
        return new ApiMessageAndVersion(message, (short) version);
    }

    static Uuid uuid(long n) {
        return new Uuid(0x5eed000000000000L + n, 0x1000000000000000L + n * 7919);
    }

    static List<Integer> ints(int... values) {
        List<Integer> out = new ArrayList<>();
        for (int value : values) {
            out.add(value);
        }
        return out;
    }

    static Compression compression(String codec) {
        return Compression.of(CompressionType.forName(codec)).build();
    }

    static RegisterBrokerRecord broker(int id, long epoch, boolean fenced) {
        RegisterBrokerRecord.BrokerEndpointCollection endpoints =
            new RegisterBrokerRecord.BrokerEndpointCollection();
        endpoints.add(new RegisterBrokerRecord.BrokerEndpoint()
            .setName("PLAINTEXT").setHost("broker-" + id + ".kafka.internal")
            .setPort(9092).setSecurityProtocol((short) 0));
        RegisterBrokerRecord.BrokerFeatureCollection features =
            new RegisterBrokerRecord.BrokerFeatureCollection();
        features.add(new RegisterBrokerRecord.BrokerFeature()
            .setName("metadata.version").setMinSupportedVersion((short) 7)
            .setMaxSupportedVersion((short) 27));
        features.add(new RegisterBrokerRecord.BrokerFeature()
            .setName("kraft.version").setMinSupportedVersion((short) 0)
            .setMaxSupportedVersion((short) 1));
        return new RegisterBrokerRecord()
            .setBrokerId(id)
            .setIncarnationId(uuid(100 + id * 1000 + epoch))
            .setBrokerEpoch(epoch)
            .setEndPoints(endpoints)
            .setFeatures(features)
            .setRack(id % 3 == 0 ? null : "rack-" + (id % 3))
            .setFenced(fenced);
    }

    // ---------------------------------------------------------------- codecs: small segments

    static void codecs(Path folder) throws IOException {
        for (String codec : CODECS) {
            try (Segment s = new Segment(folder.resolve(codec).resolve("00000000000000000000.log"),
                    compression(codec))) {
                everyKind(s);
            }
        }
    }

    /** Most record types and versions a metadata log holds, once each, in a plausible order. */
    static void everyKind(Segment s) throws IOException {
        int[] voters = {3000, 3001, 3002};
        s.bootstrapVoters(voters);
        s.leaderChange(3001, voters);
        s.metadata(List.of(
            v(new FeatureLevelRecord().setName("metadata.version").setFeatureLevel((short) 27), 0),
            v(new FeatureLevelRecord().setName("kraft.version").setFeatureLevel((short) 1), 0)));
        RegisterControllerRecord.ControllerEndpointCollection cEndpoints =
            new RegisterControllerRecord.ControllerEndpointCollection();
        cEndpoints.add(new RegisterControllerRecord.ControllerEndpoint()
            .setName("CONTROLLER").setHost("controller-3001").setPort(9094)
            .setSecurityProtocol((short) 0));
        RegisterControllerRecord.ControllerFeatureCollection cFeatures =
            new RegisterControllerRecord.ControllerFeatureCollection();
        cFeatures.add(new RegisterControllerRecord.ControllerFeature()
            .setName("metadata.version").setMinSupportedVersion((short) 7)
            .setMaxSupportedVersion((short) 27));
        s.metadata(List.of(v(new RegisterControllerRecord().setControllerId(3001)
            .setIncarnationId(uuid(31)).setEndPoints(cEndpoints).setFeatures(cFeatures), 0)));
        s.metadata(List.of(
            v(broker(1, 10, true), 0),
            v(broker(2, 11, true).setInControlledShutdown(false), 1),
            v(broker(3, 12, true).setIsMigratingZkBroker(false), 2),
            v(broker(4, 13, false).setLogDirs(List.of(uuid(41), uuid(42))), 3)));
        s.metadata(List.of(
            v(new UnfenceBrokerRecord().setId(1).setEpoch(10), 0),
            v(new BrokerRegistrationChangeRecord().setBrokerId(2).setBrokerEpoch(11)
                .setFenced((byte) -1), 0),
            v(new BrokerRegistrationChangeRecord().setBrokerId(3).setBrokerEpoch(12)
                .setFenced((byte) -1).setInControlledShutdown((byte) 0), 1),
            v(new BrokerRegistrationChangeRecord().setBrokerId(4).setBrokerEpoch(13)
                .setLogDirs(List.of(uuid(43))), 2)));
        s.metadata(List.of(v(new NoOpRecord(), 0)));
        Uuid orders = uuid(500);
        s.metadata(List.of(
            v(new TopicRecord().setName("orders").setTopicId(orders), 0),
            v(new PartitionRecord().setPartitionId(0).setTopicId(orders)
                .setReplicas(ints(1, 2, 3)).setIsr(ints(1, 2, 3)).setLeader(1)
                .setLeaderEpoch(0).setPartitionEpoch(0), 0),
            v(new PartitionRecord().setPartitionId(1).setTopicId(orders)
                .setReplicas(ints(2, 3, 4)).setIsr(ints(2, 3)).setLeader(2)
                .setLeaderEpoch(0).setPartitionEpoch(0)
                .setDirectories(List.of(uuid(42), uuid(43), Uuid.ZERO_UUID)), 1),
            v(new PartitionRecord().setPartitionId(2).setTopicId(orders)
                .setReplicas(ints(3, 4, 1)).setIsr(ints(3)).setLeader(3)
                .setLeaderEpoch(4).setPartitionEpoch(6).setLeaderRecoveryState((byte) 1)
                .setDirectories(List.of(uuid(44), uuid(45), uuid(46)))
                .setEligibleLeaderReplicas(ints(4)).setLastKnownElr(ints(1)), 2),
            v(new ConfigRecord().setResourceType((byte) 2).setResourceName("orders")
                .setName("min.insync.replicas").setValue("2"), 0),
            v(new ConfigRecord().setResourceType((byte) 2).setResourceName("orders")
                .setName("retention.ms").setValue(null), 0)));
        s.metadata(List.of(
            v(new PartitionChangeRecord().setPartitionId(0).setTopicId(orders)
                .setIsr(ints(1, 2)), 0),
            v(new PartitionChangeRecord().setPartitionId(0).setTopicId(orders)
                .setLeader(2).setIsr(ints(2)), 0),
            v(new PartitionChangeRecord().setPartitionId(1).setTopicId(orders)
                .setReplicas(ints(2, 3, 4, 1)).setAddingReplicas(ints(1))
                .setDirectories(List.of(uuid(42), uuid(43), uuid(44), uuid(41))), 1),
            v(new PartitionChangeRecord().setPartitionId(1).setTopicId(orders)
                .setReplicas(ints(3, 4, 1)).setRemovingReplicas(ints()).setAddingReplicas(ints())
                .setLeader(3).setLeaderRecoveryState((byte) 0), 1),
            v(new PartitionChangeRecord().setPartitionId(2).setTopicId(orders)
                .setLeader(-1).setIsr(ints()).setEligibleLeaderReplicas(ints(3, 4))
                .setLastKnownElr(ints()), 2),
            v(new PartitionChangeRecord().setPartitionId(2).setTopicId(orders)
                .setLeader(4).setIsr(ints(4)).setEligibleLeaderReplicas(ints(3)), 2)));
        s.metadata(List.of(
            v(new FenceBrokerRecord().setId(3).setEpoch(12), 0),
            v(new BrokerRegistrationChangeRecord().setBrokerId(4).setBrokerEpoch(13)
                .setFenced((byte) 1).setInControlledShutdown((byte) 1), 1)));
        s.metadata(List.of(v(new ProducerIdsRecord().setBrokerId(1).setBrokerEpoch(10)
            .setNextProducerId(2000), 0)));
        List<ClientQuotaRecord.EntityData> entity = List.of(
            new ClientQuotaRecord.EntityData().setEntityType("user").setEntityName("alice"),
            new ClientQuotaRecord.EntityData().setEntityType("client-id").setEntityName(null));
        s.metadata(List.of(
            v(new ClientQuotaRecord().setEntity(entity).setKey("producer_byte_rate")
                .setValue(1048576.5), 0),
            v(new ClientQuotaRecord().setEntity(entity).setKey("request_percentage")
                .setValue(0.0).setRemove(true), 0)));
        s.metadata(List.of(
            v(new BeginTransactionRecord().setName("Migrate ACLs and credentials"), 0),
            v(new UserScramCredentialRecord().setName("alice").setMechanism((byte) 1)
                .setSalt(new byte[] {1, 2, 3, 4, 5}).setStoredKey(new byte[32])
                .setServerKey(new byte[] {(byte) 0xff, 0x00, 0x7f}).setIterations(4096), 0),
            v(new AccessControlEntryRecord().setId(uuid(900)).setResourceType((byte) 2)
                .setResourceName("orders").setPatternType((byte) 3).setPrincipal("User:alice")
                .setHost("*").setOperation((byte) 3).setPermissionType((byte) 3), 0),
            v(new DelegationTokenRecord().setOwner("User:alice").setRequester("User:admin")
                .setRenewers(List.of("User:bob", "User:carol")).setIssueTimestamp(START_MS)
                .setMaxTimestamp(START_MS + 604800000L).setExpirationTimestamp(START_MS + 86400000L)
                .setTokenId("token-1"), 0),
            v(new EndTransactionRecord(), 0)));
        s.metadata(List.of(
            v(new BeginTransactionRecord().setName(null), 0),
            v(new AbortTransactionRecord().setReason("controller failover"), 0)));
        s.leaderChange(3002, voters);
        s.metadata(List.of(
                v(new ConfigRecord().setResourceType((byte) 4).setResourceName("")
                    .setName("log.retention.ms").setValue("604800000"), 0),
                v(new ConfigRecord().setResourceType((byte) 4).setResourceName("2")
                    .setName("log.cleaner.threads").setValue("2"), 0)),
            4242L, (short) 3, 17, true,
            new Header[] {new RecordHeader("origin", "gen".getBytes()),
                new RecordHeader("empty", (byte[]) null)});
        s.metadata(List.of(
            v(new RemoveTopicRecord().setTopicId(orders), 0),
            v(new UnregisterBrokerRecord().setBrokerId(4).setBrokerEpoch(13), 0)));
        s.metadata(List.of(v(new NoOpRecord(), 0)));
    }

    // ---------------------------------------------------------------- bench: one large segment

    static final int BROKERS = 12;

    /** A controller's traffic until the file holds ``megabytes``: mostly NoOps and ISR changes. */
    static void bench(Path path, long megabytes, String codec) throws IOException {
        Random random = new Random(19);
        int[] voters = {3000, 3001, 3002};
        List<Uuid> topics = new ArrayList<>();
        List<Integer> partitionCounts = new ArrayList<>();
        long[] brokerEpochs = new long[BROKERS + 1];
        long nextProducerId = 0;
        int nextTopic = 0;
        try (Segment s = new Segment(path, compression(codec))) {
            s.bootstrapVoters(voters);
            s.leaderChange(3000, voters);
            s.metadata(List.of(v(new FeatureLevelRecord().setName("metadata.version")
                .setFeatureLevel((short) 27), 0)));
            List<ApiMessageAndVersion> registrations = new ArrayList<>();
            for (int id = 1; id <= BROKERS; id++) {
                brokerEpochs[id] = 10 + id;
                registrations.add(v(broker(id, brokerEpochs[id], true)
                    .setLogDirs(List.of(uuid(id * 10L))), 3));
            }
            s.metadata(registrations);
            long limit = megabytes * 1024 * 1024;
            while (s.bytes < limit) {
                int roll = random.nextInt(1000);
                List<ApiMessageAndVersion> batch = new ArrayList<>();
                if (topics.isEmpty() || roll < 30) {
                    // a topic created: its record, its partitions, a config or two
                    Uuid id = uuid(100000 + nextTopic);
                    int partitions = 1 + random.nextInt(24);
                    batch.add(v(new TopicRecord().setName("topic-" + nextTopic).setTopicId(id), 0));
                    for (int p = 0; p < partitions; p++) {
                        List<Integer> replicas = replicas(random, 3);
                        batch.add(v(new PartitionRecord().setPartitionId(p).setTopicId(id)
                            .setReplicas(replicas).setIsr(replicas).setLeader(replicas.get(0))
                            .setLeaderEpoch(0).setPartitionEpoch(0)
                            .setDirectories(dirs(replicas)), 1));
                    }
                    for (int c = random.nextInt(3); c > 0; c--) {
                        batch.add(v(new ConfigRecord().setResourceType((byte) 2)
                            .setResourceName("topic-" + nextTopic)
                            .setName(c == 1 ? "retention.ms" : "cleanup.policy")
                            .setValue(c == 1 ? "86400000" : "compact"), 0));
                    }
                    topics.add(id);
                    partitionCounts.add(partitions);
                    nextTopic++;
                } else if (roll < 480) {
                    batch.add(v(new NoOpRecord(), 0));
                } else if (roll < 900) {
                    // ISR shrinks and expands, leader elections: several changes per event
                    for (int n = 1 + random.nextInt(8); n > 0; n--) {
                        int t = random.nextInt(topics.size());
                        batch.add(partitionChange(random, topics.get(t),
                            random.nextInt(partitionCounts.get(t))));
                    }
                } else if (roll < 940) {
                    // a broker fenced (the newer registration change, or the older record)
                    // and its leaderships moved
                    int id = 1 + random.nextInt(BROKERS);
                    batch.add(roll < 920
                        ? v(new BrokerRegistrationChangeRecord().setBrokerId(id)
                            .setBrokerEpoch(brokerEpochs[id]).setFenced((byte) 1), 2)
                        : v(new FenceBrokerRecord().setId(id).setEpoch(brokerEpochs[id]), 0));
                    for (int n = random.nextInt(20); n > 0; n--) {
                        int t = random.nextInt(topics.size());
                        List<Integer> isr = replicas(random, 2);
                        isr.remove(Integer.valueOf(id));
                        batch.add(v(new PartitionChangeRecord().setTopicId(topics.get(t))
                            .setPartitionId(random.nextInt(partitionCounts.get(t)))
                            .setLeader(isr.isEmpty() ? -1 : isr.get(0)).setIsr(isr), 0));
                    }
                } else if (roll < 960) {
                    // a broker restarts: a new registration, then unfenced
                    int id = 1 + random.nextInt(BROKERS);
                    brokerEpochs[id] = s.nextOffset;
                    batch.add(v(broker(id, brokerEpochs[id], true)
                        .setLogDirs(List.of(uuid(id * 10L))), 3));
                    s.metadata(batch);
                    batch = new ArrayList<>();
                    batch.add(v(new BrokerRegistrationChangeRecord().setBrokerId(id)
                        .setBrokerEpoch(brokerEpochs[id]).setFenced((byte) -1), 2));
                } else if (roll < 985) {
                    int t = random.nextInt(topics.size());
                    batch.add(v(new ConfigRecord().setResourceType((byte) 2)
                        .setResourceName("topic-" + t).setName("max.message.bytes")
                        .setValue(Integer.toString(1000000 + random.nextInt(1000000))), 0));
                } else if (roll < 998) {
                    int id = 1 + random.nextInt(BROKERS);
                    batch.add(v(new ProducerIdsRecord().setBrokerId(id)
                        .setBrokerEpoch(brokerEpochs[id]).setNextProducerId(nextProducerId), 0));
                    nextProducerId += 1000;
                } else {
                    s.leaderChange(voters[random.nextInt(voters.length)], voters);
                    continue;
                }
                s.metadata(batch);
            }
            System.out.println(path + ": " + s.bytes + " bytes, " + s.records + " records, "
                + s.nextOffset + " offsets");
        }
    }

    static List<Integer> replicas(Random random, int n) {
        List<Integer> out = new ArrayList<>();
        while (out.size() < n) {
            int id = 1 + random.nextInt(BROKERS);
            if (!out.contains(id)) {
                out.add(id);
            }
        }
        return out;
    }

    static List<Uuid> dirs(List<Integer> replicas) {
        List<Uuid> out = new ArrayList<>();
        for (int id : replicas) {
            out.add(uuid(id * 10L));
        }
        return out;
    }

    static ApiMessageAndVersion partitionChange(Random random, Uuid topic, int partition) {
        PartitionChangeRecord change = new PartitionChangeRecord()
            .setTopicId(topic).setPartitionId(partition);
        int kind = random.nextInt(10);
        List<Integer> isr = replicas(random, 1 + random.nextInt(3));
        if (kind < 6) {
            return v(change.setIsr(isr), 0);
        }
        if (kind < 9) {
            return v(change.setLeader(isr.get(0)).setIsr(isr), 0);
        }
        return v(change.setLeader(isr.get(0)).setIsr(isr)
            .setEligibleLeaderReplicas(replicas(random, 1)).setLastKnownElr(ints()), 2);
    }

    public static void main(String[] args) throws IOException {
        if (args.length >= 2 && args[0].equals("codecs")) {
            codecs(Paths.get(args[1]));
        } else if (args.length >= 3 && args[0].equals("bench")) {
            bench(Paths.get(args[1]), Long.parseLong(args[2]), args.length > 3 ? args[3] : "none");
        } else {
            System.err.println("usage: Gen.java codecs FOLDER | bench FILE MEGABYTES [CODEC]");
            System.exit(2);
        }
    }
}
