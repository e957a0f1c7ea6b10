-- The machines a provider sells joined into clusters: offerings its documentation gives a scale-out fabric between
-- machines (InfiniBand, EFA, RoCE, GPUDirect-TCPX/TCPXO: RDMA or its like, at the offering's listed price), from
-- sources/prices/<provider>/clusters.csv. The Planner splits a replica across such machines only (pipeline stages
-- over the fabric); any other offering's machines serve side by side behind a load balancer.
select
    collection as provider,
    offering,
    network,
    cast(network_gbps as double) as network_gbps,
    document_id,
    quote,
    source_id
from raw_clusters
