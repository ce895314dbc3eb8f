// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @dev The two calls of an ERC-20 a forwarder makes. `transfer` is called low-level: some tokens (USDT) return nothing.
interface IERC20Balance {
    function balanceOf(address account) external view returns (uint256);
}

/**
 * A deposit address of one invoice (docs/stablecoins.md#security-model). Its payout address is fixed when it is
 * deployed, and the only thing it can do is send its whole balance of a token there. Anyone may call `sweep`: the
 * caller pays the gas and decides nothing, so the relayer key that calls it cannot move funds anywhere else.
 */
contract Forwarder {
    address public immutable payout;

    error TransferFailed(address token);

    constructor(address payout_) {
        payout = payout_;
    }

    /// Sends this forwarder's whole balance of `token` to the payout address; returns the amount sent.
    function sweep(address token) external returns (uint256 amount) {
        amount = IERC20Balance(token).balanceOf(address(this));
        if (amount == 0) return 0;
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(0xa9059cbb, payout, amount));
        if (!ok || (data.length != 0 && !abi.decode(data, (bool)))) revert TransferFailed(token);
    }
}
