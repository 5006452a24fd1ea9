/**
 * The method names the gateway uses outside its method specs (`methods/<kind>/`): the calls it makes
 * to nodes itself (heads, the gas limit, the parts of a wide eth_getLogs, a moved subscription's
 * gap) the WebSocket session methods and their notification. Each is written here once; the specs name what clients
 * may call.
 */
export const EVM_BLOCK_NUMBER = 'eth_blockNumber';
export const EVM_GET_BLOCK_BY_NUMBER = 'eth_getBlockByNumber';
export const EVM_GET_LOGS = 'eth_getLogs';
/** A transaction broadcast to every node, and the look-up that tells whether a node holds it. */
export const EVM_SEND_RAW_TRANSACTION = 'eth_sendRawTransaction';
export const EVM_GET_TRANSACTION_BY_HASH = 'eth_getTransactionByHash';
export const EVM_SUBSCRIBE = 'eth_subscribe';
export const EVM_UNSUBSCRIBE = 'eth_unsubscribe';
/** The notification a subscription's messages come in (a node's and the gateway's alike). */
export const EVM_SUBSCRIPTION = 'eth_subscription';
export const SOLANA_GET_SLOT = 'getSlot';
