// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Forwarder} from "./Forwarder.sol";

/**
 * Deploys a Forwarder per (payout address, salt) with CREATE2, so the service computes an invoice's deposit address
 * before anything is deployed (the salt derives from the invoice id), and sweeps it: the first sweep deploys the
 * forwarder and forwards in one transaction. Holds no funds and has no owner.
 */
contract ForwarderFactory {
    event Swept(address indexed forwarder, address indexed payout, address indexed token, uint256 amount);

    /// The address the forwarder of (payout, salt) has, deployed or not.
    function forwarderAddress(address payout, bytes32 salt) public view returns (address) {
        bytes32 codeHash = keccak256(abi.encodePacked(type(Forwarder).creationCode, abi.encode(payout)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, codeHash)))));
    }

    /// Deploys the forwarder of (payout, salt) unless it exists, then sends its whole balance of `token` to `payout`.
    function sweep(address payout, bytes32 salt, address token) external returns (uint256 amount) {
        address at = forwarderAddress(payout, salt);
        if (at.code.length == 0) at = address(new Forwarder{salt: salt}(payout));
        amount = Forwarder(at).sweep(token);
        emit Swept(at, payout, token, amount);
    }
}
