"""Azure Retail Prices API: pay-as-you-go and spot prices of GPU virtual machines, one region per call."""

from __future__ import annotations

import httpx

from pipeline.fetch import FetchError, Snapshot, _get

AZURE_API = "https://prices.azure.com/api/retail/prices"

# Azure VM sizes with GPUs: (GPU name as Azure's size documentation gives it, memory GB, GPUs per VM).
# The names match sources/prices/azure/aliases.csv, so fetched offers map like the curated snapshot's.
AZURE_GPU_SIZES = {
    "Standard_NC4as_T4_v3": ("NVIDIA T4", 16, 1),
    "Standard_NC8as_T4_v3": ("NVIDIA T4", 16, 1),
    "Standard_NC16as_T4_v3": ("NVIDIA T4", 16, 1),
    "Standard_NC64as_T4_v3": ("NVIDIA T4", 16, 4),
    "Standard_NC24ads_A100_v4": ("NVIDIA A100 PCIe", 80, 1),
    "Standard_NC48ads_A100_v4": ("NVIDIA A100 PCIe", 80, 2),
    "Standard_NC96ads_A100_v4": ("NVIDIA A100 PCIe", 80, 4),
    "Standard_NC40ads_H100_v5": ("NVIDIA H100 NVL", 94, 1),
    "Standard_NC80adis_H100_v5": ("NVIDIA H100 NVL", 94, 2),
    "Standard_ND40rs_v2": ("NVIDIA Tesla V100", 32, 8),
    "Standard_ND96asr_v4": ("NVIDIA Ampere A100 40GB", 40, 8),
    "Standard_ND96amsr_A100_v4": ("NVIDIA Ampere A100 80GB", 80, 8),
    "Standard_ND96isr_H100_v5": ("NVIDIA H100 Tensor Core", 80, 8),
    "Standard_NV36ads_A10_v5": ("NVIDIA A10", 24, 1),
    "Standard_NV36adms_A10_v5": ("NVIDIA A10", 24, 1),
    "Standard_NV72ads_A10_v5": ("NVIDIA A10", 24, 2),
}
REQUIRED_ITEM_KEYS = (
    "armSkuName",
    "armRegionName",
    "retailPrice",
    "unitOfMeasure",
    "type",
    "meterName",
    "productName",
)
# currencyCode is read when present. The recorded answers in tests/fixtures/azure carry no currencyCode field; the
# request names no currency, so the API answers in its default, USD. An item that states another currency is left out.


def azure_items(client: httpx.Client, region: str, max_pages: int = 50) -> list[dict]:
    """All consumption (pay-as-you-go and spot) Linux VM prices of the GPU sizes above in one region."""
    skus = " or ".join(f"armSkuName eq '{sku}'" for sku in AZURE_GPU_SIZES)
    params: dict | None = {
        "$filter": f"serviceName eq 'Virtual Machines' and priceType eq 'Consumption' "
        f"and armRegionName eq '{region}' and ({skus})",
    }
    url, items = AZURE_API, []
    for _ in range(max_pages):
        page = _get(client, url, params)
        if not isinstance(page, dict) or "Items" not in page or not isinstance(page["Items"], list):
            raise FetchError(f"unexpected response from {AZURE_API}: no 'Items' list (keys: {sorted(page)[:10]})")
        for i, item in enumerate(page["Items"]):
            missing = [k for k in REQUIRED_ITEM_KEYS if k not in item]
            if missing:
                raise FetchError(f"unexpected response from {AZURE_API}: item {i} lacks {', '.join(missing)}")
        items += page["Items"]
        url, params = page.get("NextPageLink"), None
        if not url:
            return items
    raise FetchError(f"{AZURE_API}: more than {max_pages} pages; refusing to continue")


def azure_rows(items: list[dict]) -> list[dict]:
    rows = []
    for item in items:
        sku = item["armSkuName"]
        if sku not in AZURE_GPU_SIZES or item["type"] != "Consumption" or item["unitOfMeasure"] != "1 Hour":
            continue
        if (
            "Windows" in item["productName"]
            or "Low Priority" in item["meterName"]
            or item.get("currencyCode", "USD") != "USD"
        ):
            continue
        if float(item["retailPrice"]) <= 0:
            continue
        gpu_name, memory, count = AZURE_GPU_SIZES[sku]
        spot = "Spot" in item["meterName"]
        rows.append(
            {
                "offering": sku,
                "gpu_name": gpu_name,
                "gpu_memory_gb": memory,
                "gpu_count": count,
                "usd_per_hour": item["retailPrice"],
                "pricing_tier": "spot" if spot else "on-demand",
                "statistic": "list",
                "region": item["armRegionName"],
                "note": f"Linux; meter {item['meterName']}; effective {str(item.get('effectiveStartDate', ''))[:10]}",
            }
        )
    # one row per offering, tier and region: the API can list a meter twice (older effective dates)
    unique = {}
    for row in rows:
        unique[(row["offering"], row["pricing_tier"], row["region"])] = row
    return sorted(unique.values(), key=lambda r: (r["offering"], r["pricing_tier"]))


def fetch_azure(
    region: str = "eastus", transport: httpx.BaseTransport | None = None, timeout: float = 30.0
) -> Snapshot:
    with httpx.Client(transport=transport, timeout=timeout, headers={"User-Agent": "gpu-atlas"}) as client:
        rows = azure_rows(azure_items(client, region))
    if not rows:
        raise FetchError(f"{AZURE_API}: no GPU VM prices for region {region!r}")
    return Snapshot(
        "azure", rows, AZURE_API, f"Azure Retail Prices API: GPU virtual machines in {region}", "Microsoft Azure"
    )


PROVIDER = "azure"
API_ROOT = AZURE_API
fetch = fetch_azure
