// The two Binance dust answers, mapped to one shape: global Binance's POST /sapi/v1/asset/dust-btc
// and binance.us's GET /sapi/v1/asset/query/dust-assets.
import type { DustAsset, DustAssets } from './venue-gateway.ts';

const text = (value: unknown): string | null =>
  value === undefined || value === null || value === '' ? null : String(value);

/**
 * `{details:[{asset, assetFullName, amountFree, toBTC, toBNB, toBNBOffExchange, exchange}], totalTransferBtc,
 * totalTransferBNB, dribbletPercentage}`
 */
export function mapDustBtc(answer: Record<string, unknown>): DustAssets {
  const details = Array.isArray(answer.details) ? (answer.details as Record<string, unknown>[]) : [];
  return {
    assets: details.map(
      (d): DustAsset => ({
        asset: String(d.asset ?? ''),
        name: text(d.assetFullName),
        free: text(d.amountFree) ?? '0',
        toBtc: text(d.toBTC),
        toFeeToken: text(d.toBNB),
        toFeeTokenAfterFee: text(d.toBNBOffExchange),
        fee: text(d.exchange),
        usdValue: null,
      }),
    ),
    totalBtc: text(answer.totalTransferBtc),
    totalFeeToken: text(answer.totalTransferBNB),
    feeRate: text(answer.dribbletPercentage),
  };
}

/**
 * `{convertibleAssets:[{fromAsset, toAsset, availableBalance, convertedAsset, usdValueConvertedAsset, conversionFee,
 * receivedAsset}], totalConvertedAsset, totalReceivedAsset, feeRate, ...}`
 */
export function mapUsDustAssets(answer: Record<string, unknown>): DustAssets {
  const rows = Array.isArray(answer.convertibleAssets) ? (answer.convertibleAssets as Record<string, unknown>[]) : [];
  return {
    assets: rows.map(
      (r): DustAsset => ({
        asset: String(r.fromAsset ?? ''),
        name: null,
        free: text(r.availableBalance) ?? '0',
        toBtc: null,
        toFeeToken: text(r.convertedAsset),
        toFeeTokenAfterFee: text(r.receivedAsset),
        fee: text(r.conversionFee),
        usdValue: text(r.usdValueConvertedAsset),
      }),
    ),
    totalBtc: null,
    totalFeeToken: text(answer.totalConvertedAsset),
    feeRate: text(answer.feeRate),
  };
}
